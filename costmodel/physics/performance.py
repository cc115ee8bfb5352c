"""Step time of a training step: compute, tensor/pipeline/data-parallel traffic, overlap, MFU.

Units: seconds [s], bytes [B], bytes per second [B/s], FLOP/s. Arrays broadcast; the fabric
axis is the last of the batch shape (a layout search adds one more). One step of a layout
``t × p × d`` (tensor, pipeline, data parallel; ``t p d = N g`` GPUs) runs ``m`` micro-batches of
``b`` sequences through ``p`` stages, ``v`` interleaved chunks each:

* **compute** per micro-batch and GPU ``T_mb = F_hw b s / (t p F e_c)`` with the hardware FLOPs
  per token ``F_hw`` (``× 4/3`` under full recomputation) [1, 4];
* **tensor parallel**: ``l/p · (4 + 2 r)`` all-reduces of ``b s h`` activations per micro-batch
  over NVLink, not hidden [1];
* **pipeline**: ``(m + (p−1)/v)`` micro-batch slots (the bubble), ``2 v`` point-to-point sends of
  ``b s h / t`` per micro-batch and GPU [4];
* **data parallel** (ZeRO 0–2): one all-reduce (or reduce-scatter + all-gather) of the GPU's
  gradient shard per step, bucket by bucket, which can hide only behind the *last* micro-batch's
  backward (and, with a sharded optimizer, the first one's forward), slowed by the SMs NCCL's
  kernels take [7]; the last bucket is always exposed;
* **mixture of experts**: per MoE layer and micro-batch a dispatch and a combine all-to-all
  forward and backward (and again under recomputation) of the GPU's ``b s / t`` tokens × ``k``
  experts × ``h``; the share bound for other nodes runs at one NIC per GPU at the fabric's
  all-to-all efficiency (NCCL's all-to-all does not aggregate NICs), the rest over NVLink [9];
* **ZeRO-3 / FSDP**: per micro-batch an all-gather of the weights for the forward and again for
  the backward, and a reduce-scatter of the gradients, layer by layer with prefetch: hidden
  behind that micro-batch's forward/backward, except one layer's worth [3, 8].

Network volume per node of a ring over ``d`` ranks, ``k`` of them per node: ``2 (d−1)/d · S``
(all-reduce) or ``(d−1)/d · S`` (all-gather, reduce-scatter) for each of the ``g/k`` groups on the
node, at the node's ``r · port · η`` [1]; zero when the group fits in one node. Latency: NCCL's
base latency per collective plus the fabric latency per algorithm step [2].

References
----------
.. [1] NVIDIA nccl-tests, doc/PERFORMANCE.md (busbw = algbw · 2(n-1)/n).
.. [2] NVIDIA NCCL, src/graph/tuning.cc (ring vs tree latency; base latencies).
.. [3] S. Rajbhandari et al., "ZeRO", SC20, arXiv:1910.02054, sec. 7.
.. [4] D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters
   Using Megatron-LM", SC21, arXiv:2104.04473 (bubble (p-1)/(v m), eq. 3 FLOPs).
.. [5] M. Mathis et al., "The macroscopic behavior of the TCP congestion avoidance
   algorithm", CCR 27(3), 1997.
.. [6] C. Guo et al., "RDMA over Commodity Ethernet at Scale", SIGCOMM 2016 (go-back-N).
.. [7] M. Isaev et al., "Calculon", SC23 (DP all-reduce overlapped with the last backward;
   SM share of communication kernels).
.. [9] NVIDIA nccl-tests issue #267 (all-to-all is bounded by one NIC per GPU); DeepSeek-AI,
   DeepEP README (all-to-all at 0.86-0.94 of a 400G NIC on InfiniBand).
.. [8] Y. Zhao et al., "PyTorch FSDP", VLDB 2023, arXiv:2304.11277 (per-unit all-gather with
   prefetch, reshard after forward).
"""

from __future__ import annotations

import numpy as np

from costmodel.physics import transformer

LOSS_NONE, LOSS_GO_BACK_N, LOSS_MATHIS = 0, 1, 2
LOSS_MODEL_CODES = {"none": LOSS_NONE, "go_back_n": LOSS_GO_BACK_N, "mathis": LOSS_MATHIS}


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




def _crossing(d, k):
    """1 where a group of ``d`` ranks with ``k`` per node spans more than one node, else 0."""
    return (d > k * (1.0 + 1e-9)).astype(float)


def step_time(
    *,
    nodes, gpus_per_node, tp, pp, vp, zero, recompute, micro_seqs, seq_len, batch_tokens,
    params, n_layers, hidden, peak_flops, compute_eff, grad_bytes, param_bytes, act_bytes,
    bucket_bytes, node_bw_Bps, intra_node_Bps, nvlink_eff, alpha_base_s, fabric_latency_s,
    nvlink_latency_s, sm_share_net, fsdp_eff, ar_speedup=1.0,
    experts=0.0, top_k=0.0, ep=1.0, active_params=None, a2a_bw_gpu_Bps=1.0, a2a_overlap=0.0,
    node_dedup=0.0,
):
    """Step time and its parts for a ``t × p × d`` layout (arrays that broadcast together).

    Parameters
    ----------
    tp, pp, vp : tensor-parallel size, pipeline stages, interleaved chunks per stage [count]
    zero : ZeRO stage of the data-parallel dimension, 0–3 (3 = FSDP full shard)
    recompute : 1 with full activation recomputation, else 0
    micro_seqs : sequences per micro-batch ``b``; seq_len ``s`` [tokens]; batch_tokens per step
    params, n_layers, hidden : ``P`` [count], ``l``, ``h`` [elements]
    peak_flops, compute_eff : peak per GPU [FLOP/s]; share of it the kernels reach [0-1]
    grad_bytes, param_bytes, act_bytes : bytes per gradient, weight, activation element [B]
    bucket_bytes : gradient bucket of the data-parallel all-reduce [B]
    node_bw_Bps : achievable inter-node bandwidth of a node, ``r · port/8 · η`` [B/s]
    intra_node_Bps, nvlink_eff : GPU-to-GPU line rate inside the node [B/s], achievable share
    alpha_base_s, fabric_latency_s, nvlink_latency_s : NCCL base latency per collective; latency
        per algorithm step across the fabric and over NVLink [s]
    sm_share_net : share of the SMs the network collectives' kernels take while overlapped [0-1]
    fsdp_eff : share of the all-reduce bus bandwidth the ZeRO-3 gathers reach [0-1]
    ar_speedup : in-network reduction (SHARP) of the data-parallel all-reduce, 1 = none: its bytes
        on the wire ÷ ``ar_speedup`` (<= 2, a node sends and receives the data once instead of
        ``2(n-1)/n`` times) and its latency 2 steps up and down the switch tree instead of
        ``allreduce_steps`` [ratio]
    experts, top_k, ep : routed experts (0 = a dense model), experts per token, expert-parallel size
    active_params : parameters a token passes through (MoE) [count]; ``None`` = ``params``
    a2a_bw_gpu_Bps : one GPU's all-to-all bandwidth to other nodes (one NIC at most) [B/s]
    a2a_overlap : share of the all-to-all time hidden behind other micro-batches' compute [0-1]
    node_dedup : 1 when a token bound for several experts on one node crosses the fabric once
        (DeepEP-style dispatch) instead of once per expert (a plain all-to-all)

    Returns
    -------
    dict of arrays [s unless noted]: ``t_step``; ``t_compute`` (pure compute), ``t_compute_eff``
    (with the bubble); ``t_bubble``; ``t_tp`` (tensor-parallel, NVLink); ``t_p2p``; ``t_comm``
    (network collectives); ``t_exposed`` (network time on the critical path); ``t_dp_exposed``;
    ``t_wire`` (NICs busy); ``bytes_node`` [B]; ``busbw_Bps``; ``mfu``, ``hfu`` [0-1]; the layout
    ``dp``, ``microbatches``, ``micro_seqs``.
    """
    n, g = np.asarray(nodes, dtype=float), np.asarray(gpus_per_node, dtype=float)
    tp, pp, vp = (np.asarray(x, dtype=float) for x in (tp, pp, vp))
    rec, zero = np.asarray(recompute, dtype=float), np.asarray(zero, dtype=float)
    gpus = n * g
    dp = gpus / (tp * pp)
    batch_seqs = batch_tokens / seq_len
    b = np.minimum(micro_seqs, batch_seqs / dp)  # a batch smaller than d·b splits sequences
    m = batch_seqs / (dp * b)
    experts = np.asarray(experts, dtype=float)
    moe = (experts > 0).astype(float)
    p_act = params if active_params is None else np.where(moe > 0, active_params, params)
    f_model = transformer.model_flops_per_token(p_act, n_layers, seq_len, hidden)
    f_hw = transformer.hardware_flops_per_token(f_model, rec)
    t_mb = f_hw * b * seq_len / (tp * pp * peak_flops * compute_eff)
    f_bwd = np.where(rec > 0, 0.75, 2.0 / 3.0)  # share of a micro-batch's compute after its forward
    per_gpu_net = node_bw_Bps / g
    nvlink = intra_node_Bps * nvlink_eff
    # tensor parallel: NVLink inside the node, the GPU's share of the network beyond it
    in_node = tp <= g
    tp_bw = np.where(in_node, nvlink, per_gpu_net)
    tp_step = np.where(in_node, nvlink_latency_s, fabric_latency_s)
    tp_size = b * seq_len * hidden * act_bytes
    n_tp = (tp > 1) * (n_layers / pp) * (4.0 + 2.0 * rec)
    t_tp_mb = n_tp * (2.0 * (tp - 1.0) / tp * tp_size / tp_bw + alpha_base_s + 2.0 * (tp - 1.0) * tp_step)
    # pipeline point-to-point: over the network once a stage fills a node (TP, DP inside a stage)
    stage_net = (gpus / pp >= g).astype(float)
    p2p_bytes = tp_size / tp
    p2p_bw = np.where(stage_net > 0, per_gpu_net, nvlink)
    t_p2p_mb = (pp > 1) * 2.0 * vp * (p2p_bytes / p2p_bw + alpha_base_s + fabric_latency_s * stage_net)
    # data parallel: groups of dp ranks, k per node (TP innermost, then DP)
    k = np.minimum(dp, np.maximum(1.0, g / tp))
    cross = _crossing(dp, k)
    groups = g / k
    ring = (dp - 1.0) / dp
    # expert weights are split over the ep ranks: a GPU holds the dense part and 1/ep of the experts
    share = transformer.expert_share(params, p_act, experts, top_k)
    shard = params * (1.0 - share + share / ep) / (tp * pp)
    s_grad, s_param = shard * grad_bytes, shard * param_bytes
    spans = dp / k
    step_lat = fabric_latency_s * cross
    # ZeRO 0-2: once per step, bucket by bucket
    n_b = np.maximum(1.0, np.ceil(s_grad / bucket_bytes))
    v_ar = cross * 2.0 * ring * s_grad * groups
    sharp = np.asarray(ar_speedup, dtype=float)
    ar_steps = np.where(sharp > 1.0, np.minimum(2.0, allreduce_steps(spans)), allreduce_steps(spans))
    t_ar = v_ar / (sharp * node_bw_Bps) + cross * n_b * (alpha_base_s + ar_steps * step_lat)
    window = (f_bwd + (zero >= 1) * (1.0 - f_bwd)) * t_mb
    ar_late = np.maximum(t_ar - window, t_ar / n_b)  # beyond the window, and always the last bucket
    ar_exposed = ar_late + sm_share_net * (t_ar - ar_late)  # the rest overlaps, slowing the kernels by σ
    # ZeRO-3: per micro-batch, per layer with prefetch
    units = np.maximum(1.0, n_layers / pp)
    gather_lat = cross * units * (alpha_base_s + gather_steps(spans) * step_lat)
    v_ag, v_rs = cross * ring * s_param * groups, cross * ring * s_grad * groups
    t_ag = v_ag / (node_bw_Bps * fsdp_eff) + gather_lat
    t_rs = v_rs / (node_bw_Bps * fsdp_eff) + gather_lat
    fwd_c, bwd_c = (1.0 - f_bwd) * t_mb, f_bwd * t_mb
    z3_exposed_mb = (np.maximum(t_ag - fwd_c, t_ag / units) + np.maximum(t_ag + t_rs - bwd_c, (t_ag + t_rs) / units)
                     + sm_share_net * (np.minimum(t_ag, fwd_c) + np.minimum(t_ag + t_rs, bwd_c)))
    # mixture of experts: dispatch and combine all-to-alls in every layer's forward and backward
    tokens = b * seq_len / tp  # a tensor-parallel rank holds 1/t of the tokens (sequence parallel)
    ep_local = np.minimum(ep, np.maximum(1.0, g / tp))  # ep ranks on one node
    remote = np.maximum(0.0, ep - ep_local) / ep
    local = np.maximum(0.0, ep_local - 1.0) / ep
    routed = tokens * hidden * act_bytes * top_k  # bytes a GPU sends per all-to-all
    # node-deduplicated dispatch: a token crosses the fabric once per distinct remote node among its
    # k experts, N (1 − (1 − 1/N)^k) · (N − 1)/N nodes for experts spread over N = ep/ep_local nodes
    n_ep_nodes = np.maximum(1.0, ep / ep_local)
    distinct_remote = n_ep_nodes * (1.0 - (1.0 - 1.0 / n_ep_nodes) ** top_k) * (n_ep_nodes - 1.0) / n_ep_nodes
    per_token_remote = np.where(np.asarray(node_dedup) > 0, distinct_remote, top_k * remote)
    remote_bytes = tokens * hidden * act_bytes * per_token_remote
    n_a2a = moe * (n_layers / pp) * (4.0 + 2.0 * rec)
    t_a2a_mb = n_a2a * (remote_bytes / a2a_bw_gpu_Bps + routed * local / nvlink
                        + alpha_base_s + fabric_latency_s * (remote > 0))
    a2a_exposed_mb = (1.0 - a2a_overlap) * t_a2a_mb
    z3 = (zero >= 3).astype(float)
    slots = m + (pp - 1.0) / vp
    mb_time = t_mb + t_tp_mb + t_p2p_mb + a2a_exposed_mb + z3 * z3_exposed_mb
    dp_exposed = (1.0 - z3) * ar_exposed
    t_step = slots * mb_time + dp_exposed
    p2p_net = stage_net * (pp > 1) * 2.0 * vp * m * p2p_bytes * g  # bytes per node per step
    a2a_net = m * n_a2a * remote_bytes * g
    dp_bytes = z3 * m * (2.0 * v_ag + v_rs) + (1.0 - z3) * v_ar / sharp
    t_dp_comm = z3 * m * (2.0 * t_ag + t_rs) + (1.0 - z3) * t_ar
    t_p2p = slots * t_p2p_mb
    t_p2p_net = t_p2p * stage_net
    t_a2a_net = m * n_a2a * remote_bytes / a2a_bw_gpu_Bps
    with np.errstate(divide="ignore", invalid="ignore"):
        busbw = np.where(t_ar > 0, v_ar / np.where(t_ar > 0, t_ar, 1.0), node_bw_Bps)
    return {
        "t_step": t_step,
        "t_compute": m * t_mb,
        "t_compute_eff": slots * t_mb,
        "t_bubble": (slots - m) * mb_time,
        "t_tp": slots * t_tp_mb,
        "t_p2p": t_p2p,
        "t_comm": t_dp_comm + t_p2p_net + t_a2a_net,
        "t_exposed": dp_exposed + z3 * slots * z3_exposed_mb + t_p2p_net + slots * a2a_exposed_mb,
        "t_a2a": slots * t_a2a_mb,
        "t_dp_exposed": dp_exposed + z3 * slots * z3_exposed_mb,
        "t_wire": (dp_bytes + p2p_net) / node_bw_Bps + t_a2a_net,
        "bytes_node": dp_bytes + p2p_net + a2a_net,
        "busbw_Bps": np.broadcast_to(busbw, np.shape(t_step)),
        "mfu": f_model * batch_tokens / (t_step * gpus * peak_flops),
        "hfu": f_hw * batch_tokens / (t_step * gpus * peak_flops),
        "dp": dp,
        "microbatches": m,
        "micro_seqs": b,
    }
