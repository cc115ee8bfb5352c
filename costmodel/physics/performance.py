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
* **mixture of experts** (:mod:`costmodel.physics.experts`): per MoE layer and micro-batch a
  dispatch and a combine all-to-all forward and backward (and again under recomputation) of the
  GPU's ``b s / t`` tokens × ``k`` experts × ``h``; the share bound for other nodes runs at one NIC
  per GPU at the fabric's all-to-all efficiency (NCCL's all-to-all does not aggregate NICs), the
  rest over NVLink [9]; the overlapped share hides at most the compute of the micro-batch it runs
  beside, slowing it by the SMs its kernels take;
* **ZeRO-3 / FSDP**: per micro-batch an all-gather of the weights for the forward and again for
  the backward, and a reduce-scatter of the gradients, layer by layer with prefetch: hidden
  behind that micro-batch's forward/backward, except one layer's worth [3, 8].

**Scale-up domain.** ``D`` GPUs (``scaleup_gpus``, one server of ``g`` or several whole servers,
e.g. an NVL72 rack of 4-GPU trays) share NVLink: a tensor-parallel group of ``t ≤ D``, pipeline
sends while a stage is smaller than ``D`` and expert-parallel ranks inside the domain run at the
scale-up bandwidth; only what crosses domains uses the NICs (``D = g``: the domain is the server).

Network volume per server of a ring over ``d`` ranks, ``k = min(d, D/t)`` of them per domain:
``2 (d−1)/d · S`` (all-reduce) or ``(d−1)/d · S`` (all-gather, reduce-scatter) for each of the ``g/k``
groups' shares on the server, at the server's ``r · port · η`` [1]; zero when the group fits in one
domain. Latency: NCCL's base latency per collective plus the fabric latency per algorithm step [2].

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

from costmodel.physics import gemm_efficiency, transformer
from costmodel.physics.experts import all_to_all_mb, exposed_mb

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
    """1 where a group of ``d`` ranks with ``k`` per domain spans more than one domain, else 0."""
    return (d > k * (1.0 + 1e-9)).astype(float)


def _layout(gpus, tp, pp, micro_seqs, seq_len, batch_tokens):
    """Data-parallel size ``d``, sequences per micro-batch ``b`` and micro-batches per step ``m`` [count].

    A batch smaller than ``d · micro_seqs`` sequences splits them (``b`` below ``micro_seqs``).
    """
    dp = gpus / (tp * pp)
    batch_seqs = batch_tokens / seq_len
    b = np.minimum(micro_seqs, batch_seqs / dp)
    return dp, b, batch_seqs / (dp * b)


def _compute(params, active_params, moe, n_layers, seq_len, hidden, rec, b, tp, pp, peak_flops, compute_eff,
             kernel, rec_extra=0.0, precision_eff=1.0):
    """Compute of one micro-batch on one GPU.

    The kernels reach ``compute_eff`` of the peak where it is a number, else (NaN) the share of
    :func:`costmodel.physics.gemm_efficiency.layer_share` for the layout's matrix shapes (``kernel``: its
    GPU figures; without them, ``compute_eff`` as given).

    Returns ``p_act`` (parameters a token passes through) [count], ``f_model``, ``f_hw`` (model and
    hardware FLOPs per token) [FLOP], ``t_mb`` (the micro-batch's compute) [s] and ``f_bwd`` (the share
    of it after its forward) [0-1].
    """
    p_act = params if active_params is None else np.where(moe > 0, active_params, params)
    f_model = transformer.model_flops_per_token(p_act, n_layers, seq_len, hidden)
    f_hw = transformer.hardware_flops_per_token(f_model, rec, rec_extra)
    if kernel:
        shape_eff = gemm_efficiency.layer_share(hidden, tp, b * seq_len, seq_len, rec, peak_flops=peak_flops, **kernel)
        compute_eff = np.where(np.isnan(compute_eff), shape_eff, compute_eff)
    compute_eff = compute_eff * precision_eff
    t_mb = f_hw * b * seq_len / (tp * pp * peak_flops * compute_eff)
    f_bwd = np.where(rec > 0, 0.75, 2.0 / 3.0)
    return {"p_act": p_act, "f_model": f_model, "f_hw": f_hw, "t_mb": t_mb, "f_bwd": f_bwd, "eff": compute_eff}


def _tensor_parallel_mb(tp, pp, g, rec, n_layers, tp_size, nvlink, per_gpu_net, alpha_base_s, fabric_latency_s,
                        nvlink_latency_s):
    """Tensor-parallel all-reduces of one micro-batch of ``tp_size`` [B] activations on one GPU [s].

    Over NVLink while the tensor-parallel group fits in the scale-up domain of ``g`` GPUs, else at the
    GPU's share of the network.
    """
    in_node = tp <= g
    tp_bw = np.where(in_node, nvlink, per_gpu_net)
    tp_step = np.where(in_node, nvlink_latency_s, fabric_latency_s)
    n_tp = (tp > 1) * (n_layers / pp) * (4.0 + 2.0 * rec)
    return n_tp * (2.0 * (tp - 1.0) / tp * tp_size / tp_bw + alpha_base_s + 2.0 * (tp - 1.0) * tp_step)


def _pipeline_p2p_mb(gpus, g, dom, tp, pp, vp, tp_size, nvlink, per_gpu_net, alpha_base_s, fabric_latency_s):
    """Pipeline point-to-point sends of one micro-batch on one GPU, ``2 v`` of ``tp_size / t`` [B] each.

    Returns ``stage_net`` (1 once a stage fills a scale-up domain of ``dom`` GPUs, or, in a domain of
    several ``g``-GPU servers, once the pipeline spans more than one domain: the stages run in lockstep,
    so the slowest boundary, across the fabric, sets every slot; else 0), ``net_share`` (the share of the
    GPUs whose sends cross domains, ``min(1, N g/(p D))``), ``bytes`` (one send) [B] and ``t_mb`` (the
    sends' time) [s].
    """
    stage_net = ((gpus / pp >= dom) | ((dom > g) & (gpus > dom))).astype(float)
    p2p_bytes = tp_size / tp
    p2p_bw = np.where(stage_net > 0, per_gpu_net, nvlink)
    t_mb = (pp > 1) * 2.0 * vp * (p2p_bytes / p2p_bw + alpha_base_s + fabric_latency_s * stage_net)
    return {"stage_net": stage_net, "net_share": np.minimum(1.0, gpus / (pp * dom)), "bytes": p2p_bytes, "t_mb": t_mb}


def _dp_groups(dp, g, dom, tp, pp, params, p_act, experts, top_k, ep, grad_bytes, param_bytes, fabric_latency_s):
    """The data-parallel groups of ``d`` ranks, ``k`` per scale-up domain of ``dom`` GPUs (TP innermost,
    then DP), and their shards.

    Returns ``cross`` (1 when a group spans domains), ``groups`` (groups' shares per server of ``g``
    GPUs, ``g/k``) and ``spans`` (domains per group) [count], ``ring`` ``(d−1)/d``, ``step_lat``
    (fabric latency per algorithm step) [s], and the
    GPU's gradient and weight shards ``s_grad``, ``s_param`` [B]: the dense part and ``1/ep`` of the
    expert weights.
    """
    k = np.minimum(dp, np.maximum(1.0, dom / tp))
    cross = _crossing(dp, k)
    share = transformer.expert_share(params, p_act, experts, top_k)
    shard = params * (1.0 - share + share / ep) / (tp * pp)
    return {"cross": cross, "groups": g / k, "ring": (dp - 1.0) / dp, "spans": dp / k,
            "step_lat": fabric_latency_s * cross, "s_grad": shard * grad_bytes, "s_param": shard * param_bytes}


def _dp_allreduce(grp, bucket_bytes, ar_speedup, node_bw_Bps, alpha_base_s, window_s, sm_share_net):
    """The ZeRO 0–2 gradient all-reduce, once per step, bucket by bucket.

    Returns ``v_ar`` (bytes per node on the wire before in-network reduction) [B], ``sharp`` (that
    reduction's speed-up) [ratio], ``t_ar`` (its time) and ``exposed`` [s]: the part beyond the
    ``window_s`` of compute it hides behind, at least the last bucket, plus the overlapped rest slowing
    the kernels by ``sm_share_net``.
    """
    cross, spans = grp["cross"], grp["spans"]
    n_b = np.maximum(1.0, np.ceil(grp["s_grad"] / bucket_bytes))
    v_ar = cross * 2.0 * grp["ring"] * grp["s_grad"] * grp["groups"]
    sharp = np.asarray(ar_speedup, dtype=float)
    ar_steps = np.where(sharp > 1.0, np.minimum(2.0, allreduce_steps(spans)), allreduce_steps(spans))
    t_ar = v_ar / (sharp * node_bw_Bps) + cross * n_b * (alpha_base_s + ar_steps * grp["step_lat"])
    ar_late = np.maximum(t_ar - window_s, t_ar / n_b)
    return {"v_ar": v_ar, "sharp": sharp, "t_ar": t_ar, "exposed": ar_late + sm_share_net * (t_ar - ar_late)}


def _zero3_gathers_mb(grp, n_layers, pp, node_bw_Bps, fsdp_eff, alpha_base_s, fwd_s, bwd_s, sm_share_net):
    """ZeRO-3 per micro-batch: weight all-gathers for forward and backward, gradient reduce-scatter.

    Layer by layer with prefetch, hidden behind the micro-batch's forward ``fwd_s`` and backward
    ``bwd_s`` [s] except one layer's worth. Returns the bytes per node ``v_ag``, ``v_rs`` [B], the
    times ``t_ag``, ``t_rs`` and ``exposed`` (on the critical path, with the kernel slow-down) [s].
    """
    cross, ring, groups = grp["cross"], grp["ring"], grp["groups"]
    units = np.maximum(1.0, n_layers / pp)
    gather_lat = cross * units * (alpha_base_s + gather_steps(grp["spans"]) * grp["step_lat"])
    v_ag, v_rs = cross * ring * grp["s_param"] * groups, cross * ring * grp["s_grad"] * groups
    t_ag = v_ag / (node_bw_Bps * fsdp_eff) + gather_lat
    t_rs = v_rs / (node_bw_Bps * fsdp_eff) + gather_lat
    exposed = (np.maximum(t_ag - fwd_s, t_ag / units) + np.maximum(t_ag + t_rs - bwd_s, (t_ag + t_rs) / units)
               + sm_share_net * (np.minimum(t_ag, fwd_s) + np.minimum(t_ag + t_rs, bwd_s)))
    return {"v_ag": v_ag, "v_rs": v_rs, "t_ag": t_ag, "t_rs": t_rs, "exposed": exposed}


def step_time(
    *,
    nodes, gpus_per_node, tp, pp, vp, zero, recompute, micro_seqs, seq_len, batch_tokens,
    params, n_layers, hidden, peak_flops, compute_eff, grad_bytes, param_bytes, act_bytes,
    bucket_bytes, node_bw_Bps, intra_node_Bps, nvlink_eff, alpha_base_s, fabric_latency_s,
    nvlink_latency_s, sm_share_net, fsdp_eff, ar_speedup=1.0,
    experts=0.0, top_k=0.0, ep=1.0, active_params=None, a2a_bw_gpu_Bps=1.0, a2a_overlap=0.0, node_dedup=0.0,
    max_nodes=0.0, sm_share_a2a=0.0, recompute_extra=0.0, precision_eff=1.0, scaleup_gpus=None, **kernel,
):
    """Step time and its parts for a ``t × p × d`` layout (arrays that broadcast together).

    Parameters
    ----------
    tp, pp, vp : tensor-parallel size, pipeline stages, interleaved chunks per stage [count]
    zero : ZeRO stage of the data-parallel dimension, 0–3 (3 = FSDP full shard)
    recompute : 1 with full activation recomputation, else 0
    recompute_extra : share of the FLOPs selective recomputation repeats where ``recompute`` is 0 [0-1]
    micro_seqs : sequences per micro-batch ``b``; seq_len ``s`` [tokens]; batch_tokens per step
    params, n_layers, hidden : ``P`` [count], ``l``, ``h`` [elements]
    peak_flops, compute_eff : peak per GPU [FLOP/s]; share of it the kernels reach [0-1], NaN = from the
        matrix shapes (``kernel``)
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
    a2a_overlap : share of the schedule that pairs a micro-batch's all-to-all with another
        micro-batch's compute, which hides at most that compute [0-1]
    node_dedup : 1 when a token bound for several experts on one node crosses the fabric once
        (DeepEP-style dispatch) instead of once per expert (a plain all-to-all)
    max_nodes : nodes a token's experts may span (node-limited routing), 0 = no limit [count]
    sm_share_a2a : share of the SMs the all-to-all kernels take while they overlap compute [0-1]
    precision_eff : the kernels' share of a lower precision's peak relative to BF16's [0-1], 1 for BF16
    scaleup_gpus : GPUs of one scale-up domain ``D`` (``max_nodes`` counts domains) [count]; None = the node
    kernel : the GPU's kernel figures, :data:`costmodel.physics.gemm_efficiency.KERNEL_KEYS` (arrays)

    Returns
    -------
    dict of arrays [s unless noted]: ``t_step``; ``t_compute`` (pure compute), ``t_compute_eff``
    (with the bubble); ``t_bubble``; ``t_tp`` (tensor-parallel, NVLink); ``t_p2p``; ``t_comm``
    (network collectives); ``t_exposed`` (network time on the critical path); ``t_dp_exposed``;
    ``t_wire`` (NICs busy); ``t_scaleout``, ``scaleout_share`` (of ``t_step``, :func:`_step_parts`);
    ``bytes_node`` (scale-out bytes per server and step) [B]; ``busbw_Bps``; ``mfu``, ``hfu`` [0-1]; the
    layout ``dp``, ``microbatches``, ``micro_seqs``; ``compute_eff`` (the kernels' share of peak used) [0-1].
    """
    n, g = np.asarray(nodes, dtype=float), np.asarray(gpus_per_node, dtype=float)
    tp, pp, vp = (np.asarray(x, dtype=float) for x in (tp, pp, vp))
    rec, zero, experts = (np.asarray(x, dtype=float) for x in (recompute, zero, experts))
    moe, gpus = (experts > 0).astype(float), n * g
    dom = g if scaleup_gpus is None else np.asarray(scaleup_gpus, dtype=float)
    dp, b, m = _layout(gpus, tp, pp, micro_seqs, seq_len, batch_tokens)
    c = _compute(params, active_params, moe, n_layers, seq_len, hidden, rec, b, tp, pp, peak_flops, compute_eff,
                 kernel, recompute_extra, precision_eff)
    per_gpu_net, nvlink, tp_size = node_bw_Bps / g, intra_node_Bps * nvlink_eff, b * seq_len * hidden * act_bytes
    t_tp_mb = _tensor_parallel_mb(tp, pp, dom, rec, n_layers, tp_size, nvlink, per_gpu_net, alpha_base_s,
                                  fabric_latency_s, nvlink_latency_s)
    p2p = _pipeline_p2p_mb(gpus, g, dom, tp, pp, vp, tp_size, nvlink, per_gpu_net, alpha_base_s, fabric_latency_s)
    grp = _dp_groups(dp, g, dom, tp, pp, params, c["p_act"], experts, top_k, ep, grad_bytes, param_bytes,
                     fabric_latency_s)
    f_bwd, t_mb = c["f_bwd"], c["t_mb"]
    window = (f_bwd + (zero >= 1) * (1.0 - f_bwd)) * t_mb  # the all-reduce hides behind the last backward
    ar = _dp_allreduce(grp, bucket_bytes, ar_speedup, node_bw_Bps, alpha_base_s, window, sm_share_net)
    z3 = _zero3_gathers_mb(grp, n_layers, pp, node_bw_Bps, fsdp_eff, alpha_base_s, (1.0 - f_bwd) * t_mb,
                           f_bwd * t_mb, sm_share_net)
    a2a = all_to_all_mb(moe, b, seq_len, tp, dom, ep, top_k, hidden, act_bytes, node_dedup, max_nodes, n_layers, pp,
                        rec, a2a_bw_gpu_Bps, nvlink, alpha_base_s, fabric_latency_s)
    a2a["exposed"] = exposed_mb(a2a["t_mb"], t_mb, a2a_overlap, sm_share_a2a)
    return _step_parts(dp=dp, b=b, m=m, g=g, gpus=gpus, pp=pp, vp=vp, zero=zero, c=c, t_tp_mb=t_tp_mb, p2p=p2p,
                       ar=ar, z3=z3, a2a=a2a, a2a_bw_gpu_Bps=a2a_bw_gpu_Bps, node_bw_Bps=node_bw_Bps,
                       batch_tokens=batch_tokens, peak_flops=peak_flops, tp_net=(tp > dom).astype(float))


def _step_parts(*, dp, b, m, g, gpus, pp, vp, zero, c, t_tp_mb, p2p, ar, z3, a2a, a2a_bw_gpu_Bps, node_bw_Bps,
                batch_tokens, peak_flops, tp_net=0.0):
    """The step from its parts: ``m + (p−1)/v`` micro-batch slots, then the exposed data-parallel all-reduce.

    ``c``, ``p2p``, ``ar``, ``z3``, ``a2a`` are the dicts of the compute, pipeline, all-reduce, ZeRO-3 and
    all-to-all helpers (the all-to-all's ``exposed`` per micro-batch from
    :func:`costmodel.physics.experts.exposed_mb`); ``t_tp_mb`` the tensor-parallel time per micro-batch
    [s], ``tp_net`` 1 where the tensor-parallel group leaves the scale-up domain. ``t_scaleout``: the
    scale-out communication compute does not hide (the exposed network time, the exposed all-to-all in
    the share of its time beyond the domain, tensor parallel beyond the domain). Returns the dict of
    :func:`step_time`.
    """
    a2a_exposed_mb = a2a["exposed"]
    is_z3 = (zero >= 3).astype(float)
    slots = m + (pp - 1.0) / vp
    mb_time = c["t_mb"] + t_tp_mb + p2p["t_mb"] + a2a_exposed_mb + is_z3 * z3["exposed"]
    dp_exposed = (1.0 - is_z3) * ar["exposed"]
    t_step = slots * mb_time + dp_exposed
    p2p_net = p2p["stage_net"] * p2p["net_share"] * (pp > 1) * 2.0 * vp * m * p2p["bytes"] * g  # per node and step
    a2a_net = m * a2a["n_a2a"] * a2a["remote_bytes"] * g
    dp_bytes = is_z3 * m * (2.0 * z3["v_ag"] + z3["v_rs"]) + (1.0 - is_z3) * ar["v_ar"] / ar["sharp"]
    t_dp_comm = is_z3 * m * (2.0 * z3["t_ag"] + z3["t_rs"]) + (1.0 - is_z3) * ar["t_ar"]
    t_p2p = slots * p2p["t_mb"]
    t_p2p_net = t_p2p * p2p["stage_net"]
    t_a2a_net = m * a2a["n_a2a"] * a2a["remote_bytes"] / a2a_bw_gpu_Bps
    t_ar = ar["t_ar"]
    dp_z3_exposed = dp_exposed + is_z3 * slots * z3["exposed"]
    with np.errstate(divide="ignore", invalid="ignore"):
        a2a_out = np.where(a2a["t_mb"] > 0, a2a["t_remote_mb"] / np.where(a2a["t_mb"] > 0, a2a["t_mb"], 1.0), 0.0)
    t_scaleout = dp_z3_exposed + t_p2p_net + slots * (a2a_exposed_mb * a2a_out + tp_net * t_tp_mb)
    with np.errstate(divide="ignore", invalid="ignore"):
        busbw = np.where(t_ar > 0, ar["v_ar"] / np.where(t_ar > 0, t_ar, 1.0), node_bw_Bps)
    return {
        "t_step": t_step,
        "t_compute": m * c["t_mb"],
        "t_compute_eff": slots * c["t_mb"],
        "t_bubble": (slots - m) * mb_time,
        "t_tp": slots * t_tp_mb,
        "t_p2p": t_p2p,
        "t_comm": t_dp_comm + t_p2p_net + t_a2a_net,
        "t_exposed": dp_exposed + is_z3 * slots * z3["exposed"] + t_p2p_net + slots * a2a_exposed_mb,
        "t_a2a": slots * a2a["t_mb"],
        "t_dp_exposed": dp_z3_exposed,
        "t_scaleout": t_scaleout,
        "scaleout_share": t_scaleout / t_step,
        "t_wire": (dp_bytes + p2p_net) / node_bw_Bps + t_a2a_net,
        "bytes_node": dp_bytes + p2p_net + a2a_net,
        "busbw_Bps": np.broadcast_to(busbw, np.shape(t_step)),
        "mfu": c["f_model"] * batch_tokens / (t_step * gpus * peak_flops),
        "hfu": c["f_hw"] * batch_tokens / (t_step * gpus * peak_flops),
        "dp": dp,
        "microbatches": m,
        "micro_seqs": b,
        "compute_eff": c["eff"],
    }
