"""Serving physics: prefill and decode times of one serving instance, its memory and its messages.

Units: seconds [s], bytes [B], bytes per second [B/s], FLOP and FLOP/s; counts per token. Every
function takes numpy arrays that broadcast (a trailing axis of candidate batch sizes included).

An *instance* is the set of ``G`` GPUs that together hold one copy of the weights (tensor parallel
for a dense model, expert parallel with data-parallel attention for a mixture of experts). ``D`` of
them share one scale-up domain (NVLink, Infinity Fabric, UB); an instance larger than a domain
talks across the scale-out fabric.

References
----------
.. [1] J. Kaplan et al., "Scaling Laws for Neural Language Models", arXiv:2001.08361, table 1
   (forward FLOPs per token ``2 N + 2 n_layer n_ctx d_attn``).
.. [2] W. Kwon et al., "Efficient Memory Management for Large Language Model Serving with
   PagedAttention", SOSP 2023, arXiv:2309.06180 (decode is bound by memory; KV cache bounds the batch).
.. [3] DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437 (MLA's compressed KV; expert
   parallelism with dispatch and combine per MoE layer); DeepEP README (FP8 dispatch, BF16 combine).
.. [4] A. Agrawal et al., "Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve",
   OSDI 2024, arXiv:2403.02310 (chunked prefill: prompts share the decode iterations).
.. [5] Y. Zhong et al., "DistServe: Disaggregating Prefill and Decoding", OSDI 2024,
   arXiv:2401.09670 (disaggregated prefill and decode; the KV cache moves between them).
"""

from __future__ import annotations

import numpy as np

from costmodel.physics.transformer import expert_share


def kv_bytes_per_token(n_layers, kv_heads, head_dim, kv_latent, kv_elem_bytes):
    """KV cache of one token over all layers [B]: ``l · 2 · h_kv · d_head · b`` with grouped-query
    attention, ``l · c_kv · b`` with a latent (MLA) cache of ``c_kv`` elements (``kv_latent`` > 0) [2, 3].

    >>> float(kv_bytes_per_token(80, 8, 128, 0, 2.0)) / 2**10  # Llama 3.1 70B, BF16: 320 KiB
    320.0
    """
    per_layer = np.where(np.asarray(kv_latent) > 0, kv_latent, 2.0 * np.asarray(kv_heads) * head_dim)
    return n_layers * per_layer * kv_elem_bytes


def attention_flops(n_layers, heads, head_dim, context):
    """Attention score and value products of one token against ``context`` earlier ones [FLOP]:
    ``4 · l · n_heads · d_head · context`` (two products, 2 FLOP a multiply-add) [1]."""
    return 4.0 * n_layers * heads * head_dim * context


def prefill_flops(active_params, n_layers, heads, head_dim, prompt):
    """FLOPs of prefilling one prompt of ``L_p`` tokens [FLOP]: ``L_p (2 P_active) + attention`` at
    the causal mean context ``L_p / 2`` [1].

    >>> round(float(prefill_flops(70.6e9, 80, 64, 128, 1000)) / 1e12, 2)
    142.51
    """
    return prompt * (2.0 * active_params + attention_flops(n_layers, heads, head_dim, 0.5 * prompt))


def experts_touched(experts, top_k, tokens):
    """Share of an MoE layer's routed experts that at least one of ``tokens`` tokens uses [0-1]:
    ``1 − (1 − k/E)^tokens`` with uniform routing; 1 for a dense model (``E = 0``).

    >>> round(float(experts_touched(256, 8, 1)), 5), round(float(experts_touched(256, 8, 256)), 3)
    (0.03125, 1.0)
    """
    e = np.asarray(experts, dtype=float)
    p = np.where(e > 0, np.asarray(top_k, dtype=float) / np.where(e > 0, e, 1.0), 1.0)
    return 1.0 - (1.0 - np.clip(p, 0.0, 1.0)) ** np.maximum(tokens, 0.0)


def step_read_bytes(total_params, active_params, experts, top_k, weight_bytes, batch, context, kv_token_bytes):
    """Bytes one decode step reads from HBM over the whole instance [B] [2]: the dense weights, the
    routed experts the batch touches (:func:`experts_touched`) and the KV cache of ``batch`` sequences
    of ``context`` tokens."""
    expert = expert_share(total_params, active_params, experts, top_k) * total_params
    weights = (total_params - expert + expert * experts_touched(experts, top_k, batch)) * weight_bytes
    return weights + batch * context * kv_token_bytes


def all_to_all_s(tokens_per_gpu, top_k, hidden, elem_bytes, gpus, domain_gpus, link):
    """One expert dispatch or combine of ``tokens_per_gpu`` tokens on every GPU of the instance [s] [3].

    Each token goes to ``k`` experts spread evenly over the ``G`` GPUs; the share ``(G − D)/G`` outside
    the sender's scale-up domain crosses the fabric, ``(D − 1)/G`` goes over the domain. Messages are
    gathered per destination GPU: ``m = min(k · t · (G − D)/G, G − D)`` a GPU. Fabric part
    ``L + m (t_post + 1/rate) + bytes / B_a2a``, domain part ``L_nv + bytes / B_nv``; the two run at
    once, the slower one counts. ``link``: a mapping with ``latency_s``, ``post_s``, ``message_rate``
    [1/s], ``a2a_Bps`` (one GPU's all-to-all bandwidth over the fabric), ``gpu_Bps`` (one GPU's share of
    its server's fabric bandwidth), ``nvlink_Bps``, ``nvlink_latency_s``.
    """
    g = np.asarray(gpus, dtype=float)
    d = np.minimum(g, domain_gpus)
    remote, local = (g - d) / g, np.maximum(0.0, d - 1.0) / g
    copies = tokens_per_gpu * top_k
    messages = np.minimum(copies * remote, g - d)
    t_net = np.where(remote > 0, link["latency_s"] + messages * (link["post_s"] + 1.0 / link["message_rate"])
                     + copies * remote * hidden * elem_bytes / link["a2a_Bps"], 0.0)
    t_nv = np.where(local > 0, link["nvlink_latency_s"]
                    + copies * local * hidden * elem_bytes / link["nvlink_Bps"], 0.0)
    return np.maximum(t_net, t_nv)


def all_reduce_s(tokens, hidden, elem_bytes, gpus, domain_gpus, link):
    """One tensor-parallel all-reduce of ``tokens × hidden`` activations over the instance [s]: a ring
    inside the domain, ``2 (D−1)/D · bytes / B_nv + 2 (D−1) L_nv``, then across the ``n = G/D``
    domains over the fabric, each GPU its ``1/D`` slice over its own NIC:
    ``2 (n−1)/n · bytes / (D · B_gpu) + 2 (n−1)(L + t_post + 1/rate)``."""
    g = np.asarray(gpus, dtype=float)
    d = np.minimum(g, domain_gpus)
    n = np.maximum(1.0, g / d)
    size = tokens * hidden * elem_bytes
    t_nv = 2.0 * (d - 1.0) * (size / (d * link["nvlink_Bps"]) + link["nvlink_latency_s"])
    hop = link["latency_s"] + link["post_s"] + 1.0 / link["message_rate"]
    t_net = 2.0 * (n - 1.0) * (size / (n * d * link["gpu_Bps"]) + hop)
    return t_nv + t_net


def comm_s(w, tokens, gpus, domain_gpus, link, dispatch_bytes, combine_bytes, act_bytes):
    """Communication of one forward pass of ``tokens`` tokens over the instance [s]: with routed experts
    (``w["experts"] > 0``) a dispatch and a combine in each MoE layer (attention data parallel);
    dense, two all-reduces in each layer (tensor parallel)."""
    per_gpu = tokens / np.asarray(gpus, dtype=float)
    moe = w["moe_layers"] * (all_to_all_s(per_gpu, w["top_k"], w["hidden"], dispatch_bytes, gpus, domain_gpus, link)
                             + all_to_all_s(per_gpu, w["top_k"], w["hidden"], combine_bytes, gpus, domain_gpus, link))
    dense = 2.0 * w["n_layers"] * all_reduce_s(tokens, w["hidden"], act_bytes, gpus, domain_gpus, link)
    return np.where(np.asarray(w["experts"]) > 0, moe, dense)


def kv_transfer_s(prompt, kv_token_bytes, n_layers, gpus, link):
    """Moving one request's KV cache from a prefill instance to a decode instance over the fabric [s]
    [5]: every GPU sends its share over its own NIC, layer by layer:
    ``L + l (t_post + 1/rate) + L_p · kv / (G · B_gpu)``."""
    per_message = link["post_s"] + 1.0 / link["message_rate"]
    return link["latency_s"] + n_layers * per_message + prompt * kv_token_bytes / (gpus * link["gpu_Bps"])


__all__ = ["all_reduce_s", "all_to_all_s", "attention_flops", "comm_s", "experts_touched", "kv_bytes_per_token",
           "kv_transfer_s", "prefill_flops", "step_read_bytes"]
