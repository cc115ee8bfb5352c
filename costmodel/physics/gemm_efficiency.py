"""Kernel efficiency by matrix shape: the share of a GPU's peak one transformer layer's compute reaches.

Units: widths and tokens are counts, FLOP/s, bytes per second [B/s]; shares [0-1]. Arrays broadcast.
Per token and layer on one GPU of a tensor-parallel group of ``t`` (sequence parallel), a training
step spends

* **weight GEMMs** — QKV ``h × 3h/t``, projection ``h/t × h``, MLP ``h × 4h/t`` and ``4h/t × h``,
  ``M`` = the micro-batch's tokens — at the measured maximum matmul share of peak [2] times their
  tile and wave quantization: ``M N / (waves · SMs · tile_m · tile_n)`` with ``⌈M/tile_m⌉ ⌈N/tile_n⌉``
  tiles filling the SMs in whole waves [1];
* **attention** ``4 s h / t`` FLOPs: fused (FlashAttention) at its measured share of peak [4], or
  unfused as batched GEMMs plus the score matrices, ``5 a s / t`` bytes per token [3], through memory;
* **memory traffic** of the element-wise and normalisation operations: the ``34 h / t`` bytes a layer
  stores per token [3] (``10 h`` of them whole on every rank without sequence parallelism), written
  and read in the forward pass, read and matched by a gradient in the backward, at the achievable
  HBM bandwidth [5].

Forward, backward (twice the forward's FLOPs) and, under full recomputation, one more forward.

References
----------
.. [1] NVIDIA, Matrix Multiplication Background User's Guide, 2023 (tile and wave quantization).
.. [2] S. Bekman, Machine Learning Engineering, Maximum Achievable Matmul FLOPS (after Q. Anthony et al.,
   "The Case for Co-Designing Model Architectures with Hardware", arXiv:2401.14489).
.. [3] V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
   arXiv:2205.05198, eq. 1-2.
.. [4] T. Dao, "FlashAttention-2", arXiv:2307.08691; J. Shah et al., "FlashAttention-3", arXiv:2407.08608.
.. [5] M. Isaev et al., "Calculon", SC23 (memory efficiency of large transfers).
"""

from __future__ import annotations

import numpy as np

#: The keyword arguments of :func:`layer_share` that describe the GPU and its kernels (arrays in
#: :class:`~costmodel.pipeline.inputs.Inputs`, from ``data/gemm_efficiency.yaml``).
KERNEL_KEYS = ("gemm_share", "gemm_sms", "tile_m", "tile_n", "attn_share", "hbm_Bps", "act_bytes_h",
               "replicated_bytes_h", "score_bytes", "head_dim", "passes_fwd", "passes_bwd", "fused_attention",
               "sequence_parallel")


def quantization(m, n, sms, tile_m, tile_n):
    """Share of the launched tile slots of an ``m × n`` output doing useful work [0-1] [1].

    >>> round(float(quantization(8192, 4096, 108, 256, 128)), 3)
    0.948
    """
    tiles = np.ceil(m / tile_m) * np.ceil(n / tile_n)
    waves = np.ceil(tiles / sms)
    return m * n / (waves * sms * tile_m * tile_n)


def layer_share(hidden, tp, tokens, seq_len, recompute, *, peak_flops, gemm_share, gemm_sms, tile_m, tile_n,
                attn_share, hbm_Bps, act_bytes_h, replicated_bytes_h, score_bytes, head_dim, passes_fwd,
                passes_bwd, fused_attention, sequence_parallel):
    """Share of ``peak_flops`` a transformer layer's hardware FLOPs reach on one GPU [0-1].

    ``hidden`` width, ``tp`` tensor-parallel size, ``tokens`` of one micro-batch (``b s``), ``seq_len``
    ``s``, ``recompute`` 1 for full recomputation; the kernel figures as in ``data/gemm_efficiency.yaml``
    (``hbm_Bps`` the achievable memory bandwidth [B/s]; ``fused_attention`` 1 = FlashAttention;
    ``sequence_parallel`` 1 = norms and dropouts split over the tensor-parallel ranks).

    >>> kw = dict(peak_flops=989e12, gemm_share=0.801, gemm_sms=132, tile_m=256, tile_n=128, attn_share=0.6,
    ...           hbm_Bps=3.0e12, act_bytes_h=34, replicated_bytes_h=10, score_bytes=5, head_dim=128, passes_fwd=2,
    ...           passes_bwd=3, fused_attention=1, sequence_parallel=1)
    >>> narrow = layer_share(4096, 8, 8192, 8192, 0, **kw)
    >>> wide = layer_share(16384, 8, 8192, 8192, 0, **kw)
    >>> bool(0.3 < narrow < wide < 0.801)
    True
    """
    h, t = np.asarray(hidden, dtype=float), np.asarray(tp, dtype=float)
    rec = np.asarray(recompute, dtype=float)
    fused = np.asarray(fused_attention, dtype=float)
    gemm_s = 0.0 * h  # seconds per token of the forward's weight GEMMs
    gemm_flops = 0.0 * h
    for n, k in ((3.0 * h / t, h), (h, h / t), (4.0 * h / t, h), (h, 4.0 * h / t)):
        flops = 2.0 * n * k
        gemm_flops = gemm_flops + flops
        gemm_s = gemm_s + flops / (peak_flops * gemm_share * quantization(tokens, n, gemm_sms, tile_m, tile_n))
    attn_flops = 4.0 * seq_len * h / t
    attn_s = attn_flops / (peak_flops * np.where(fused > 0, attn_share, gemm_share))
    passes = passes_fwd * (1.0 + rec) + passes_bwd
    scores = (1.0 - fused) * score_bytes * (h / head_dim) * seq_len / t
    sp = np.asarray(sequence_parallel, dtype=float)
    stored = (act_bytes_h - replicated_bytes_h) * h / t + replicated_bytes_h * h * (sp / t + 1.0 - sp)
    mem_s = passes * (stored + scores) / hbm_Bps
    runs = 3.0 + rec  # forward, backward (two forwards' FLOPs), recomputed forward
    busy = runs * (gemm_s + attn_s) + mem_s
    return runs * (gemm_flops + attn_flops) / (peak_flops * busy)
