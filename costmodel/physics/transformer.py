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
.. [6] DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437, sec. 3.2.1 table 2
   (DualPipe: parameters 2×, activations of PP + 1 micro-batches) and sec. 3.3.3 (the inputs of
   the linear layers cached in FP8 for the backward).
.. [7] NVIDIA Megatron-Core, ``pipeline_parallel/schedules.py``: the interleaved schedule's
   warm-up is capped at the micro-batches there are (all forward first when ``m ≤ p``).
"""

from __future__ import annotations

import numpy as np

# 2 B fp16/bf16 weights + 2 B gradients + 12 B fp32 master copy, momentum and variance [4]
WEIGHT_BYTES, GRAD_BYTES, OPTIMIZER_BYTES = 2.0, 2.0, 12.0
# activation bytes per token per layer per unit of width with sequence parallelism when the s×s
# attention scores are recomputed (selective recomputation, or a fused flash-attention kernel that
# never stores them): 34 s b h of [3, eq. 2] less its two 1-byte dropout masks (attention output
# and MLP output), as LLMs train today without dropout (Llama 3.1: attention_dropout 0, no hidden
# dropout); without any recomputation the scores add ``5 a s / h = 5 s / d_head`` [3, eq. 2]
ACTIVATION_BYTES_PER_H = 32.0
SCORE_BYTES_PER_SEQ_HEAD = 5.0
# the inputs of the linear layers among those bytes (QKV 2, projection 2, FC1 2, FC2 8 [3, sec. 4.1]):
# what FP8 training caches at 1 byte an element instead of 2 [6]
LINEAR_INPUT_BYTES_PER_H = 14.0
FP8_BYTES = 1.0  # an FP8 element (FP4 recipes cache the linear layers' inputs in FP8 too)


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


def hardware_flops_per_token(model_flops, recompute, extra=0.0):
    """FLOPs the GPUs execute per token: full recomputation repeats the forward, ``× 4/3`` [1];
    otherwise ``× (1 + extra)``, the share selective recomputation repeats (attention's score
    products, 1.6–2.7 % in [3, sec. 5]; 0 without recomputation).

    ``recompute`` is 1 (full activation recomputation) or 0.
    """
    r = np.asarray(recompute, dtype=float)
    return model_flops * np.where(r > 0, 1.0 + r / 3.0, 1.0 + np.asarray(extra, dtype=float))


def state_bytes_per_gpu(params, tp, pp, dp, zero, *, weight_bytes=WEIGHT_BYTES, grad_bytes=GRAD_BYTES,
                        optimizer_bytes=OPTIMIZER_BYTES, expert_params=0.0, ep=1.0, weight_copies=1.0,
                        extra_weight_bytes=0.0):
    """Weights, gradients and optimizer state per GPU [B] under ZeRO stage ``zero`` (0–3) [4].

    ``P/(t p)`` parameters per model-parallel rank; stage 1 shards the optimizer state over the
    ``dp`` data-parallel ranks, stage 2 the gradients too, stage 3 the weights too. Of ``params``,
    ``expert_params`` are routed experts already split over ``ep`` GPUs: each expert has ``dp/ep``
    data-parallel replicas, so its state shards over those only (Megatron's expert data parallel).
    ``weight_copies`` copies of weights and gradients (DualPipe holds two [6]), their optimizer state
    sharded over ``copies ×`` the ranks (the same per GPU); ``extra_weight_bytes`` per parameter of
    a cached low-precision weight copy.

    >>> float(state_bytes_per_gpu(8e9, 8, 1, 1, 0)) / 1e9
    16.0
    """
    z = np.asarray(zero, dtype=float)
    c = np.asarray(weight_copies, dtype=float)
    expert = np.asarray(expert_params, dtype=float)

    def part(n, shards):
        opt = np.where(z >= 1, optimizer_bytes / shards, optimizer_bytes * c)  # c copies over c × shards ranks
        grad = np.where(z >= 2, grad_bytes / shards, grad_bytes) * c
        weight = np.where(z >= 3, weight_bytes / shards, weight_bytes) * c + extra_weight_bytes * c
        return n / (tp * pp) * (opt + grad + weight)

    return part(params - expert, dp) + part(expert, np.maximum(1.0, dp / np.asarray(ep, dtype=float)))


def gathered_bytes_per_gpu(params, tp, n_layers, zero, *, weight_bytes=WEIGHT_BYTES):
    """Whole weights ZeRO-3 / FSDP holds while it computes [B]: the current layer's and the
    prefetched next one's tensor-parallel shard, ``2 · P/(t l) · weight_bytes`` [5]; 0 below stage 3."""
    z3 = (np.asarray(zero, dtype=float) >= 3).astype(float)
    return z3 * 2.0 * params / (tp * n_layers) * weight_bytes


def activation_bytes_per_layer(seq_len, micro_seqs, hidden, tp, recompute, *, scores=0.0, head_dim=np.inf,
                               linear_bytes=WEIGHT_BYTES):
    """Activations one layer keeps for one micro-batch [B] [3, eq. 2; 6].

    ``32 s b h / t`` with sequence parallelism when the attention scores are recomputed
    (``scores`` 0: selective recomputation or a fused attention kernel), plus ``5 s / d_head``
    per unit of ``s b h / t`` when they are stored (``scores`` 1); the linear layers' inputs
    (14 of the 32) at ``linear_bytes`` per element instead of 2 (FP8: 1). Under full recomputation
    (``recompute`` 1) only the layer's input ``2 s b h / t``. Returns (bytes kept, bytes of the
    layer's full set).

    >>> round(float(activation_bytes_per_layer(2048, 1, 12288, 8, 0)[0]) / 2**20, 1)
    96.0
    """
    sbh_t = seq_len * micro_seqs * hidden / tp
    kept = (ACTIVATION_BYTES_PER_H - LINEAR_INPUT_BYTES_PER_H * (1.0 - np.asarray(linear_bytes) / 2.0)
            + np.asarray(scores, dtype=float) * SCORE_BYTES_PER_SEQ_HEAD * seq_len / head_dim)
    r = np.asarray(recompute, dtype=float)
    return np.where(r > 0, 2.0, kept) * sbh_t, kept * sbh_t


def held_layer_microbatches(n_layers, pp, vp, microbatches, dualpipe=0.0):
    """Layer-micro-batches of activations the first pipeline stage holds at its peak [count].

    1F1B: ``min(m, p)`` micro-batches of its ``l/p`` layers [3, sec. 4.2.3]; interleaved (``v > 1``):
    ``l/p · min(m, p + (p−1)/v)``, i.e. ``l (1 + (p−1)/(p v))`` once there are enough micro-batches,
    all of them when there are fewer [7]; DualPipe: ``p + 1`` micro-batches of a stage [6]; no
    pipeline: one micro-batch of every layer.

    >>> float(held_layer_microbatches(126, 16, 4, 16))
    126.0
    """
    pp, vp, m = (np.asarray(x, dtype=float) for x in (pp, vp, microbatches))
    per_stage = n_layers / pp
    one_f_one_b = np.where(vp > 1, np.minimum(m, pp + (pp - 1.0) / vp), np.minimum(m, pp))
    in_flight = np.where(np.asarray(dualpipe, dtype=float) > 0, np.minimum(m, pp + 1.0), one_f_one_b)
    return per_stage * np.where(pp > 1, in_flight, 1.0)


def activation_bytes_per_gpu(seq_len, micro_seqs, hidden, n_layers, tp, pp, vp, microbatches, recompute, *,
                             scores=0.0, head_dim=np.inf, linear_bytes=WEIGHT_BYTES, dualpipe=0.0):
    """Activations the first pipeline stage holds at its peak [B] [3, 6, 7]: one layer's
    (:func:`activation_bytes_per_layer`) times :func:`held_layer_microbatches`, plus under full
    recomputation one layer's full set while it is recomputed.

    >>> round(float(activation_bytes_per_gpu(2048, 1, 12288, 96, 8, 8, 1, 8, 0)) / 2**30, 2)
    9.0
    """
    per_layer, full = activation_bytes_per_layer(seq_len, micro_seqs, hidden, tp, recompute, scores=scores,
                                                 head_dim=head_dim, linear_bytes=linear_bytes)
    held = per_layer * held_layer_microbatches(n_layers, pp, vp, microbatches, dualpipe)
    return held + (np.asarray(recompute, dtype=float) > 0) * full


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
