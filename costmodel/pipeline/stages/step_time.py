"""Stage 2, step time: latency, loss, bandwidth and the time of one optimizer step."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costmodel.arrays import compact
from costmodel.physics import congestion, gemm_efficiency, host_link, layout, performance, transformer
from costmodel.pipeline.inputs import Inputs
from costmodel.pipeline.stages.topology import Topology


@dataclass(frozen=True)
class StepTime:
    """One training step, each ``(S, F)``; times [s], bandwidths [B/s]."""

    fabric_latency_s: np.ndarray  # port-to-port latency across the fabric
    alpha_s: np.ndarray  # latency of one collective step (NCCL base + fabric)
    efficiency: np.ndarray  # achievable share of the line rate after loss [0-1]
    node_bw_Bps: np.ndarray  # inter-node bandwidth per node
    t_compute: np.ndarray  # pure compute of the step's micro-batches
    t_step: np.ndarray
    t_comm: np.ndarray  # network collectives and point-to-point
    t_exposed: np.ndarray  # network time on the critical path
    t_dp_exposed: np.ndarray  # the data-parallel / FSDP part of it
    t_bubble: np.ndarray  # pipeline fill and drain
    t_tp: np.ndarray  # tensor-parallel all-reduces over NVLink
    t_wire: np.ndarray  # time the NICs carry traffic
    bytes_node: np.ndarray  # inter-node bytes per node per step [B]
    busbw_Bps: np.ndarray  # all-reduce bus bandwidth
    utilization: np.ndarray  # T_compute / T_step [0-1]
    wait_share: np.ndarray  # T_exposed / T_step [0-1]
    scaleout_share: np.ndarray  # scale-out communication not hidden by compute / T_step [0-1]
    mfu: np.ndarray  # model FLOPs (6 N + 12 l s h per token) / peak [0-1]
    hfu: np.ndarray  # hardware FLOPs (with recomputation) / peak [0-1]
    kernel_efficiency: np.ndarray  # the kernels' share of peak while computing: typed, or from the shapes [0-1]
    dp: np.ndarray  # data-parallel size [count]
    microbatches: np.ndarray  # micro-batches per step per replica [count]
    # the layout used (the scenario's, or the layout search's per fabric) and its memory
    tp: np.ndarray  # tensor-parallel size [count]
    pp: np.ndarray  # pipeline stages [count]
    vp: np.ndarray  # interleaved chunks per stage [count]
    zero: np.ndarray  # ZeRO stage 0-3
    micro_seqs: np.ndarray  # sequences per micro-batch used [count]
    recompute: np.ndarray  # 1 = full activation recomputation
    memory_bytes: np.ndarray  # per GPU: state, activations, gathered layers [B]
    memory_usable_bytes: np.ndarray  # per GPU: its memory less the reserve [B]
    fits_memory: np.ndarray  # 1 where the layout fits (under a search: one of the grid was found)


def base_latency(p: Inputs, step_latency_s: np.ndarray) -> np.ndarray:
    """NCCL's base latency per collective [s]: the catalog's, or on a fabric with an nccl-tests
    measurement the measured latency of a whole collective less the ring steps the model adds
    itself, ``max(0, α_measured − allreduce_steps(hosts) · L_step)`` (unknown hosts: 2)."""
    measured = np.isfinite(p.measured_alpha_s)
    if not measured.any():
        return p.nccl_base_latency_s
    hosts = np.where(np.isfinite(p.measured_hosts), p.measured_hosts, 2.0)
    own = np.nan_to_num(p.measured_alpha_s) - performance.allreduce_steps(hosts) * step_latency_s
    return np.where(measured, np.maximum(0.0, own), p.nccl_base_latency_s)


def precision_efficiency(p: Inputs) -> np.ndarray:
    """The share of its own peak the workload's precision reaches relative to BF16's [ratio]: 1 for
    BF16, ``fp8_efficiency_ratio`` for FP8, ``fp4_efficiency_ratio`` for FP4 (``data/defaults.yaml``)."""
    code = p.precision_code
    return np.where(code == 1.0, p.fp8_eff_ratio, np.where(code == 2.0, p.fp4_eff_ratio, 1.0))


def step_args(p: Inputs, topo: Topology) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """The fabric latency [s], loss-adjusted efficiency, node bandwidth [B/s] and the keyword
    arguments of :func:`costmodel.physics.performance.step_time` for the scenario's layout (a layout
    search replaces ``tp``, ``pp``, ``vp``, ``zero`` and ``micro_seqs``)."""
    fabric_latency = p.latency_s + topo.hops * p.hop_latency_s
    # a NIC's useful rate: the lesser of its port and its host slot (costmodel/physics/host_link.py); the
    # fabric's efficiency (NCCL and transport, loss, congestion) then applies to whichever binds, and the
    # loss model sees the rate the NIC actually sends at
    slot = host_link.slot_bytes_s(p.nic_pcie_gen, p.nic_pcie_lanes, p.pcie_eff)
    nic_Bps = host_link.nic_bytes_s(p.port_bps, slot)
    eta = p.efficiency * performance.loss_factor(
        p.loss_model, p.loss_rate, nic_Bps * 8.0, p.efficiency, 2.0 * fabric_latency,
        p.mtu_bytes, p.tcp_flows, p.mathis_c,
    )
    # congestion once a rail spans leaves (routing class, oversubscription): costmodel/physics/congestion.py
    n_leaf = congestion.leaf_nodes(p.nodes, p.nics_per_node, p.switch_radix, p.oversubscription)
    eta = eta * congestion.allreduce_factor(p.nodes, n_leaf, p.oversubscription, p.spine_eff)
    node_bw = p.nics_per_node * nic_Bps * eta
    args = dict(
        nodes=p.nodes, gpus_per_node=p.gpus_per_node, scaleup_gpus=p.scaleup_gpus, tp=p.tp,
        pp=p.pipeline_stages, vp=p.vp,
        zero=p.zero, recompute=p.recompute, micro_seqs=p.micro_seqs, seq_len=p.seq_len,
        batch_tokens=p.batch_tokens, params=p.params, n_layers=p.n_layers, hidden=p.hidden,
        peak_flops=p.peak_flops * p.peak_ratio, compute_eff=p.compute_efficiency, precision_eff=precision_efficiency(p),
        recompute_extra=p.selective * p.recompute_flops_frac, grad_bytes=p.grad_bytes,
        param_bytes=p.param_bytes, act_bytes=p.act_bytes, bucket_bytes=p.bucket_bytes,
        node_bw_Bps=node_bw, intra_node_Bps=p.intra_node_Bps, nvlink_eff=p.nvlink_eff,
        alpha_base_s=base_latency(p, np.maximum(p.nccl_step_latency_s, fabric_latency)),
        fabric_latency_s=np.maximum(p.nccl_step_latency_s, fabric_latency),
        nvlink_latency_s=p.nvlink_latency_s, sm_share_net=p.sm_share_net, fsdp_eff=p.fsdp_eff,
        experts=p.experts, top_k=p.top_k, ep=p.ep, active_params=p.active_params,
        a2a_bw_gpu_Bps=(np.minimum(1.0, p.nics_per_node / p.gpus_per_node) * nic_Bps * p.a2a_efficiency
                        * congestion.alltoall_factor(p.nodes, n_leaf, p.oversubscription, p.spine_eff)),
        a2a_overlap=p.a2a_overlap, node_dedup=p.node_dedup, max_nodes=p.moe_max_nodes, sm_share_a2a=p.sm_share_a2a,
    )
    low_precision = (p.precision_code > 0).astype(float)
    args.update(scores=p.scores, head_dim=p.head_dim, dualpipe=p.dualpipe,
                linear_bytes=np.where(low_precision > 0, transformer.FP8_BYTES, p.act_bytes),
                extra_weight_bytes=low_precision * p.lp_weight_copy_bytes)
    args.update({k: getattr(p, k) for k in gemm_efficiency.KERNEL_KEYS})  # compute efficiency by shape
    # in-network reduction (SHARP) where the scenario turns it on and the switches have it
    args["ar_speedup"] = np.where(p.in_network_reduction * p.sharp_capable > 0, p.sharp_speedup, 1.0)
    return fabric_latency, eta, node_bw, args


def step_time(p: Inputs, topo: Topology, search: bool = False) -> StepTime:
    """Step time of a tensor × pipeline × data (or FSDP) parallel layout on the fabric.

    Parameters
    ----------
    p : Inputs
        Broadcast inputs: latencies [s], ``port_bps`` [bit/s], ``efficiency`` and loss inputs,
        model shape, batch and layout, GPU peak [FLOP/s] and kernel efficiency.
    topo : Topology
        Reads ``hops``.
    search : bool
        True (parallelism "best"): each fabric at the fastest layout of the grid that fits GPU
        memory (:func:`costmodel.physics.layout.search`) instead of the scenario's.

    Returns
    -------
    StepTime

    Notes
    -----
    ``L = L_port + hops · L_hop``; ``α = α_NCCL + L``; a ring step over the network takes
    ``max(L, L_NCCL,step)``;
    ``η = η_0 · loss_factor(p, RTT = 2L) · congestion`` (:mod:`costmodel.physics.congestion`: the
    spine efficiency and the oversubscription once a rail spans leaves); per-node bandwidth
    ``B = r · min(port/8, slot) · η`` with the host slot's achieved rate
    (:mod:`costmodel.physics.host_link`); SHARP (``ar_speedup``) where the scenario turns it on and the fabric
    has it;
    ``T_step`` and its parts from :func:`costmodel.physics.performance.step_time`; utilisation
    ``T_compute / T_step``.

    References
    ----------
    .. [1] NVIDIA nccl-tests, doc/PERFORMANCE.md.
    .. [2] D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters
       Using Megatron-LM", SC21.
    """
    fabric_latency, eta, node_bw, args = step_args(p, topo)
    usable = p.gpu_memory_bytes * (1.0 - p.memory_reserve_frac)
    found = None
    if search:
        chosen = layout.search(args, usable)
        args, found = {**args, **chosen.args}, chosen.found
    # each argument at its smallest broadcastable view: what does not vary by row or fabric is
    # computed once (a Monte Carlo batch draws a few dozen of the inputs); results broadcast back
    shape = np.shape(p.nodes)
    s = {k: np.broadcast_to(v, shape) for k, v in performance.step_time(
        **{k: compact(v) if isinstance(v, np.ndarray) else v for k, v in layout.step_kwargs(args).items()}).items()}
    t_step = s["t_step"]
    memory = layout.memory_of(args)
    fits = (memory <= usable) if found is None else (found & (memory <= usable))
    return StepTime(
        fabric_latency_s=fabric_latency, alpha_s=args["alpha_base_s"] + fabric_latency,
        efficiency=eta, node_bw_Bps=node_bw, t_compute=s["t_compute"], t_step=t_step,
        t_comm=s["t_comm"], t_exposed=s["t_exposed"], t_dp_exposed=s["t_dp_exposed"],
        t_bubble=s["t_bubble"], t_tp=s["t_tp"], t_wire=s["t_wire"], bytes_node=s["bytes_node"],
        busbw_Bps=s["busbw_Bps"], utilization=s["t_compute"] / t_step,
        wait_share=s["t_exposed"] / t_step,
        scaleout_share=s["scaleout_share"], mfu=s["mfu"], hfu=s["hfu"], kernel_efficiency=s["compute_eff"], dp=s["dp"],
        microbatches=s["microbatches"], tp=args["tp"], pp=args["pp"], vp=args["vp"], zero=args["zero"],
        micro_seqs=s["micro_seqs"], recompute=args["recompute"], memory_bytes=memory, memory_usable_bytes=usable,
        fits_memory=fits.astype(float),
    )
