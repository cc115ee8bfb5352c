"""Stage 2, step time: latency, loss, bandwidth and the time of one optimizer step."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import performance
from ..inputs import Inputs
from .topology import Topology


@dataclass(frozen=True)
class StepTime:
    """One training step, each ``(S, F)``; times [s], bandwidths [B/s]."""

    fabric_latency_s: np.ndarray  # port-to-port latency across the fabric
    alpha_s: np.ndarray  # latency of one collective step (NCCL base + fabric)
    efficiency: np.ndarray  # achievable share of the line rate after loss [0-1]
    node_bw_Bps: np.ndarray  # inter-node bandwidth per node
    t_compute: np.ndarray
    t_step: np.ndarray
    t_comm: np.ndarray
    t_exposed: np.ndarray  # network time on the critical path
    t_wire: np.ndarray  # time the NICs carry traffic
    bytes_node: np.ndarray  # inter-node bytes per node per step [B]
    busbw_Bps: np.ndarray  # all-reduce bus bandwidth
    utilization: np.ndarray  # T_c / T_step [0-1]
    wait_share: np.ndarray  # T_exposed / T_step [0-1]


def step_time(p: Inputs, topo: Topology, parallelism: str) -> StepTime:
    """Step time of data-, FSDP- or pipeline-parallel training on the fabric.

    Parameters
    ----------
    p : Inputs
        Broadcast inputs: latencies [s], ``port_bps`` [bit/s], ``efficiency`` and loss inputs,
        model size and batch, GPU peak [FLOP/s] and efficiency.
    topo : Topology
        Reads ``hops``.
    parallelism : str
        ``dp``, ``fsdp`` or ``pipeline``.

    Returns
    -------
    StepTime

    Notes
    -----
    ``L = L_port + hops · L_hop``; ``α = α_NCCL + L``;
    ``η = η_0 · loss_factor(p, RTT = 2L)``; per-node bandwidth ``B = r · port/8 · η``;
    ``T_c = k P B_tok / (G F e_c)``; ``T_step`` from :func:`costmodel.performance.step_time`;
    utilisation ``T_c / T_step``.

    References
    ----------
    .. [1] NVIDIA nccl-tests, doc/PERFORMANCE.md.
    .. [2] D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters
       Using Megatron-LM", SC21.
    """
    n, g, r = p.nodes, p.gpus_per_node, p.nics_per_node
    fabric_latency = p.latency_s + topo.hops * p.hop_latency_s
    alpha = p.nccl_base_latency_s + fabric_latency
    eta = p.efficiency * performance.loss_factor(
        p.loss_model, p.loss_rate, p.port_bps, p.efficiency, 2.0 * fabric_latency,
        p.mtu_bytes, p.tcp_flows, p.mathis_c,
    )
    node_bw = r * p.port_bps / 8.0 * eta
    t_c = performance.compute_time(
        p.flops_per_param_token, p.params, p.batch_tokens, n * g, p.peak_flops,
        p.compute_efficiency,
    )
    s = performance.step_time(
        parallelism=parallelism, nodes=n, gpus_per_node=g, params=p.params,
        batch_tokens=p.batch_tokens, grad_bytes=p.grad_bytes, act_bytes=p.act_bytes,
        hidden=p.hidden, pipeline_stages=p.pipeline_stages, microbatches=p.microbatches,
        t_compute=t_c, overlap_frac=p.overlap_frac, bucket_bytes=p.bucket_bytes,
        node_bw_Bps=node_bw, intra_node_Bps=p.intra_node_Bps, alpha_s=alpha,
    )
    t_step = s["t_step"]
    return StepTime(
        fabric_latency_s=fabric_latency, alpha_s=alpha, efficiency=eta, node_bw_Bps=node_bw,
        t_compute=t_c, t_step=t_step, t_comm=s["t_comm"], t_exposed=s["t_exposed"],
        t_wire=s["t_wire"], bytes_node=s["bytes_node"], busbw_Bps=s["busbw_Bps"],
        utilization=t_c / t_step, wait_share=s["t_exposed"] / t_step,
    )
