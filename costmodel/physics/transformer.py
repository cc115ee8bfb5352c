"""Transformer arithmetic: shape, FLOPs per token and memory per GPU of a dense decoder.

Units: parameters and elements are counts, FLOPs per token [FLOP], memory [B]. Every function
takes numpy arrays that broadcast together.

References
----------
.. [1] D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters
   Using Megatron-LM", SC21, arXiv:2104.04473, eq. 3 (FLOPs, recomputation's extra forward).
.. [2] A. Chowdhery et al., "PaLM", arXiv:2204.02311, appendix B (MFU on 6N + 12 l s h).
.. [3] V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
   MLSys 2023, arXiv:2205.05198, sec. 4 (activation bytes per layer, eq. 1–2).
.. [4] S. Rajbhandari et al., "ZeRO", SC20, arXiv:1910.02054 (16 bytes of weights, gradients
   and Adam state per parameter in mixed precision; sharding by stage).
.. [5] Y. Zhao et al., "PyTorch FSDP", VLDB 2023, arXiv:2304.11277 (an all-gathered unit is
   freed after use; with prefetch at most two units are whole at once).
"""

from __future__ import annotations

import numpy as np

# 2 B fp16/bf16 weights + 2 B gradients + 12 B fp32 master copy, momentum and variance [4]
WEIGHT_BYTES, GRAD_BYTES, OPTIMIZER_BYTES = 2.0, 2.0, 12.0
# activation bytes per token per layer per unit of width with sequence parallelism and a fused
# (flash) attention that keeps no s×s score matrix: 34 s b h of [3, eq. 2] without the 5 a s/h term
ACTIVATION_BYTES_PER_H = 34.0


def layers(params, hidden):
    """Layers of a dense decoder with ``P ≈ 12 l h²`` parameters, at least one [count].

    >>> float(layers(174.6e9, 12288.0)).__round__()
    96
    """
    return np.maximum(1.0, np.round(params / (12.0 * hidden**2)))


def model_flops_per_token(params, n_layers, seq_len, hidden):
    """Model FLOPs per token of one training step, ``6 P + 12 l s h`` [FLOP] [1, 2].

    Forward and backward matrix multiplies (``6 P``) plus attention's score and value products
    (``12 l s h``); what MFU counts, whatever the implementation recomputes.

    >>> round(float(model_flops_per_token(174.6e9, 96, 2048, 12288)) / 1e12, 3)
    1.077
    """
    return 6.0 * params + 12.0 * n_layers * seq_len * hidden


def hardware_flops_per_token(model_flops, recompute):
    """FLOPs the GPUs execute per token: full recomputation repeats the forward, ``× 4/3`` [1].

    ``recompute`` is 1 (full activation recomputation) or 0.
    """
    return model_flops * (1.0 + np.asarray(recompute, dtype=float) / 3.0)


def state_bytes_per_gpu(params, tp, pp, dp, zero, *, weight_bytes=WEIGHT_BYTES, grad_bytes=GRAD_BYTES):
    """Weights, gradients and optimizer state per GPU [B] under ZeRO stage ``zero`` (0–3) [4].

    ``P/(t p)`` parameters per model-parallel rank; stage 1 shards the optimizer state over the
    ``dp`` data-parallel ranks, stage 2 the gradients too, stage 3 the weights too. Weights and
    gradients take ``weight_bytes`` and ``grad_bytes`` each, the optimizer 12 B (fp32 master
    copy, momentum, variance).

    >>> float(state_bytes_per_gpu(8e9, 8, 1, 1, 0)) / 1e9
    16.0
    """
    per_rank = params / (tp * pp)
    z = np.asarray(zero, dtype=float)
    opt = np.where(z >= 1, OPTIMIZER_BYTES / dp, OPTIMIZER_BYTES)
    grad = np.where(z >= 2, grad_bytes / dp, grad_bytes)
    weight = np.where(z >= 3, weight_bytes / dp, weight_bytes)
    return per_rank * (opt + grad + weight)


def gathered_bytes_per_gpu(params, tp, n_layers, zero, *, weight_bytes=WEIGHT_BYTES):
    """Whole weights ZeRO-3 / FSDP holds while it computes [B]: the current layer's and the
    prefetched next one's tensor-parallel shard, ``2 · P/(t l) · weight_bytes`` [5]; 0 below stage 3."""
    z3 = (np.asarray(zero, dtype=float) >= 3).astype(float)
    return z3 * 2.0 * params / (tp * n_layers) * weight_bytes


def activation_bytes_per_gpu(seq_len, micro_seqs, hidden, n_layers, tp, pp, vp, in_flight, recompute):
    """Activations the first pipeline stage holds at its peak [B] [3].

    Per layer and micro-batch ``34 s b h / t`` bytes (sequence parallel, fused attention), or
    only the layer's input ``2 s b h / t`` under full recomputation plus one layer's full set
    while it is recomputed. The first stage holds ``in_flight`` micro-batches (``min(m, p)`` in
    1F1B, 1 without a pipeline) of its ``l/p`` layers: ``l`` layers' worth in 1F1B [3, sec. 4.2.3],
    ``× (1 + (p−1)/(p v))`` under the interleaved schedule (``v > 1`` chunks per stage).

    >>> round(float(activation_bytes_per_gpu(2048, 1, 12288, 96, 8, 8, 1, 8, 0)) / 2**30, 2)
    9.56
    """
    per_layer_full = ACTIVATION_BYTES_PER_H * seq_len * micro_seqs * hidden / tp
    per_layer_input = 2.0 * seq_len * micro_seqs * hidden / tp
    r = np.asarray(recompute, dtype=float)
    per_layer = np.where(r > 0, per_layer_input, per_layer_full)
    vp = np.asarray(vp, dtype=float)
    interleave = np.where(vp > 1, 1.0 + (pp - 1.0) / (pp * vp), 1.0)
    held = per_layer * (n_layers / pp) * in_flight * interleave
    return held + r * per_layer_full


def expert_share(params, active_params, experts, top_k):
    """Share of a mixture-of-experts model's parameters that sit in its routed experts [0-1].

    With ``P = P_dense + P_experts`` and ``P_active = P_dense + P_experts · k/E``:
    ``P_experts / P = (1 − P_active/P) / (1 − k/E)``; 0 for a dense model (``E = 0``).

    >>> round(float(expert_share(671e9, 37e9, 256, 8)), 3)
    0.975
    """
    e = np.asarray(experts, dtype=float)
    safe_e = np.where(e > 0, e, 1.0)
    frac = (1.0 - active_params / params) / np.maximum(1e-12, 1.0 - top_k / safe_e)
    return np.where(e > 0, np.clip(frac, 0.0, 1.0), 0.0)
