"""Step time of data-/FSDP-/pipeline-parallel training: compute, all-reduce, overlap, MFU.

Units: seconds [s], bytes [B], bytes per second [B/s], FLOP/s. Arrays broadcast; the fabric
axis is the last one. Parallelism across nodes is one of

``dp``        tensor parallel inside the node, data parallel across nodes; per step each node
              all-reduces its gradient, each GPU its own 1/g shard over the rails:
              ``2 (d-1)/d · S`` bytes cross the node's NICs [1, 3].
``fsdp``      ZeRO-3 across all GPUs: parameters all-gathered twice and gradients
              reduce-scattered, ``3 (N-1)/N · S`` bytes per node per step [3], plus the
              intra-node (NVLink/PCIe) phases of the hierarchical collectives, ``3 (g-1)/g · S``.
``pipeline``  ``p`` stages across nodes × ``d = N/p`` data-parallel replicas: the all-reduce of
              ``S/p`` among ``d`` nodes, plus activations forward and their gradients backward
              between stages, ``2 · (B/d) · h · a`` bytes per node per step [4].

References
----------
.. [1] NVIDIA nccl-tests, doc/PERFORMANCE.md (busbw = algbw · 2(n-1)/n).
.. [2] NVIDIA NCCL, src/graph/tuning.cc (ring vs tree latency; base latencies).
.. [3] S. Rajbhandari et al., "ZeRO", SC20, arXiv:1910.02054, sec. 7.
.. [4] D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters
   Using Megatron-LM", SC21, arXiv:2104.04473 (bubble (p-1)/m).
.. [5] M. Mathis et al., "The macroscopic behavior of the TCP congestion avoidance
   algorithm", CCR 27(3), 1997.
.. [6] C. Guo et al., "RDMA over Commodity Ethernet at Scale", SIGCOMM 2016 (go-back-N).
.. [7] M. Isaev et al., "Calculon", SC23 (DP all-reduce overlapped with the backward pass).
"""

from __future__ import annotations

import numpy as np

LOSS_NONE, LOSS_GO_BACK_N, LOSS_MATHIS = 0, 1, 2
LOSS_MODEL_CODES = {"none": LOSS_NONE, "go_back_n": LOSS_GO_BACK_N, "mathis": LOSS_MATHIS}


def compute_time(flops_per_param_token, params, batch_tokens, gpus, peak_flops, efficiency):
    """Pure compute time of one optimizer step, ``T_c = k P B / (G F e_c)`` [s].

    ``k`` FLOP per parameter-token (6, or 8 with full recompute), ``P`` parameters, ``B`` tokens
    per step, ``G`` GPUs, ``F`` peak FLOP/s per GPU, ``e_c`` compute efficiency [0-1].

    >>> round(float(compute_time(6, 7e9, 4e6, 64, 989e12, 0.5)), 3)
    5.308
    """
    return flops_per_param_token * params * batch_tokens / (gpus * peak_flops * efficiency)


def loss_factor(code, loss_rate, port_bps, efficiency, rtt_s, mtu_bytes, flows, mathis_c):
    """Throughput multiplier in (0, 1] caused by packet loss.

    * ``none`` (InfiniBand credit-based flow control): 1.
    * ``go_back_n`` (RoCE NIC recovery): ``1 / (1 + p W)``, ``W = port·RTT/MTU`` packets in
      flight, all resent after a loss [6].
    * ``mathis`` (TCP, iWARP): per-flow bound ``MSS/RTT · C/√p`` [5] times ``flows`` parallel
      connections, as a share of the loss-free rate ``port · η``, capped at 1.

    >>> float(loss_factor(1, 1e-3, 400e9, 0.9, 10e-6, 4096, 1, 1.22))
    0.8912...
    """
    p = np.asarray(loss_rate, dtype=float)
    window = np.maximum(1.0, port_bps / 8.0 * rtt_s / mtu_bytes)
    gbn = 1.0 / (1.0 + p * window)
    safe_p = np.where(p > 0, p, 1.0)
    per_flow_bps = mtu_bytes * 8.0 / rtt_s * mathis_c / np.sqrt(safe_p)
    mathis = np.where(p > 0, np.minimum(1.0, flows * per_flow_bps / (port_bps * efficiency)), 1.0)
    return np.where(code == LOSS_GO_BACK_N, gbn, np.where(code == LOSS_MATHIS, mathis, 1.0))


def allreduce_steps(ranks):
    """Latency steps of one all-reduce among ``ranks`` nodes: ``min(2(n-1), 2⌈log2 n⌉)``.

    Ring all-reduce has ``2(n-1)`` sequential steps, a tree ``2 log2 n``; NCCL picks the
    faster at small messages [2]. Zero for one rank.

    >>> allreduce_steps(np.array([1., 2., 8., 1024.])).tolist()
    [0.0, 2.0, 6.0, 20.0]
    """
    n = np.maximum(np.asarray(ranks, dtype=float), 1.0)
    return np.minimum(2.0 * (n - 1.0), 2.0 * np.ceil(np.log2(n)))


def gather_steps(ranks):
    """Latency steps of one all-gather or reduce-scatter: ``min(n-1, ⌈log2 n⌉)``."""
    n = np.maximum(np.asarray(ranks, dtype=float), 1.0)
    return np.minimum(n - 1.0, np.ceil(np.log2(n)))


def hidden_size(params, d_model_per_layer):
    """Model width from the parameter count, ``P ≈ 12 L h²`` with ``h = a L`` [elements].

    >>> round(float(hidden_size(70e9, 128)))
    9072
    """
    return np.cbrt(d_model_per_layer * params / 12.0)


def step_time(
    *,
    parallelism: str,
    nodes, gpus_per_node, params, batch_tokens, grad_bytes, act_bytes, hidden,
    pipeline_stages, microbatches, t_compute, overlap_frac, bucket_bytes,
    node_bw_Bps, intra_node_Bps, alpha_s,
):
    """Step time and its parts for one parallelism layout (arrays of one shape: the model
    broadcasts its inputs once, :func:`costmodel.stages.batch.broadcast_inputs`).

    Parameters
    ----------
    t_compute : pure compute time ``T_c`` [s]
    overlap_frac : share of ``T_c`` that can hide data-parallel communication [0-1]
    node_bw_Bps : achievable inter-node bandwidth per node, ``r · port · η_eff`` [B/s]
    intra_node_Bps : GPU-to-GPU bandwidth inside the node [B/s]
    alpha_s : latency of one collective step across the fabric [s]

    Returns
    -------
    dict of arrays: ``t_step``, ``t_compute_eff`` (with pipeline bubble), ``t_comm`` (DP
    collective time), ``t_exposed`` (network time on the critical path), ``t_wire`` (time the
    NICs carry traffic), ``bytes_node`` (inter-node bytes per node per step), ``busbw_Bps``.
    """
    n = np.asarray(nodes, dtype=float)
    g = np.asarray(gpus_per_node, dtype=float)
    grad_total = params * grad_bytes
    if parallelism == "pipeline":
        p = np.minimum(np.asarray(pipeline_stages, dtype=float), n)
    else:
        p = np.ones_like(n)
    d = n / p
    shard = grad_total / p
    if parallelism == "fsdp":
        v_dp = 3.0 * (n - 1.0) / n * grad_total
        v_intra = 3.0 * (g - 1.0) / g * grad_total
        n_coll = 3.0 * np.ceil(grad_total / bucket_bytes)
        lat_steps = gather_steps(n)
    else:
        # tensor parallel inside the node: each GPU all-reduces its own 1/g of the gradient
        # across nodes over the rails; nothing is reduced over NVLink.
        v_dp = 2.0 * (d - 1.0) / d * shard
        v_intra = 0.0
        n_coll = np.ceil(shard / bucket_bytes)
        lat_steps = allreduce_steps(d)
    t_bw = v_dp / node_bw_Bps
    t_lat = n_coll * lat_steps * alpha_s
    t_comm = t_bw + t_lat + v_intra / intra_node_Bps
    if parallelism == "pipeline":
        bubble = (p - 1.0) / microbatches
        v_p2p = np.where(p > 1, 2.0 * (batch_tokens / d) * hidden * act_bytes, 0.0)
        t_p2p = v_p2p / node_bw_Bps + np.where(p > 1, 2.0 * microbatches * alpha_s, 0.0)
    else:
        bubble = v_p2p = t_p2p = 0.0
    t_comp_eff = t_compute * (1.0 + bubble)
    exposed_dp = np.maximum(0.0, t_comm - overlap_frac * t_compute)
    t_step = t_comp_eff + exposed_dp + t_p2p
    bytes_node = v_dp + v_p2p
    t_wire = t_bw + v_p2p / node_bw_Bps
    inter = t_bw + t_lat
    busbw = np.where(v_dp > 0, v_dp / np.where(inter > 0, inter, 1.0), node_bw_Bps)
    return {
        "t_step": t_step,
        "t_compute_eff": t_comp_eff,
        "t_comm": t_comm,
        "t_exposed": exposed_dp + t_p2p,
        "t_wire": t_wire,
        "bytes_node": bytes_node,
        "busbw_Bps": busbw,
    }
