"""Stage 3, reliability: failure rates, checkpoint interval and goodput."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import reliability as rel
from ..inputs import Inputs
from .topology import Topology

SECONDS_PER_HOUR = 3600.0
#: below this goodput the job makes no practical progress; the floor keeps every figure finite
MIN_GOODPUT = 1e-9


@dataclass(frozen=True)
class Reliability:
    """Failures of the job, each ``(S, F)``."""

    rate_total: np.ndarray  # job-interrupting failures [1/h]
    rate_net: np.ndarray  # of which the network's [1/h]
    net_share: np.ndarray  # rate_net / rate_total [0-1]
    mtbf_s: np.ndarray  # [s]
    save_s: np.ndarray  # checkpoint write time [s]
    interval_s: np.ndarray  # compute time between checkpoints [s]
    goodput: np.ndarray  # share of wall time that advances the job [0-1]
    failure_loss: np.ndarray  # share of busy time lost to failures [0-1]


def reliability(p: Inputs, topo: Topology) -> Reliability:
    """Failure rate, Daly's checkpoint interval and the resulting goodput.

    Parameters
    ----------
    p : Inputs
        Broadcast inputs: failure rates per GPU, node [1/h] and endpoint [1/h]; checkpoint size
        [B/parameter] and write speed [B/s per node]; restart time [s].
    topo : Topology
        Reads ``endpoints``.

    Returns
    -------
    Reliability

    Notes
    -----
    ``Λ = N g λ_gpu + N λ_node + E λ_net``; ``M = 3600 / Λ`` [s];
    ``δ = bytes/param · P / (N · write speed)``; ``τ`` by Daly (2006, eq. 37);
    goodput ``max(τ / T_w, 1e-9)`` (Daly eq. 13); failure loss ``1 − goodput / (τ / (τ + δ))``.

    References
    ----------
    .. [1] J.T. Daly, "A higher order estimate of the optimum checkpoint interval for restart
       dumps", FGCS 22(3), 2006.
    .. [2] A. Dubey et al., "The Llama 3 Herd of Models", arXiv:2407.21783, 2024, Table 5.
    """
    n = p.nodes
    rate_total, rate_net = rel.job_failure_rate(
        n, p.gpus_per_node, topo.endpoints, p.gpu_fail_per_hour, p.node_fail_per_hour,
        p.net_fail_per_endpoint_hour,
    )
    mtbf_s = SECONDS_PER_HOUR / rate_total
    save_s = p.ckpt_bytes_per_param * p.params / (n * p.ckpt_write_Bps_per_node)
    interval_s = rel.daly_interval(save_s, mtbf_s)
    good = np.maximum(rel.goodput(interval_s, save_s, p.restart_s, mtbf_s), MIN_GOODPUT)
    ckpt_only = interval_s / (interval_s + save_s)
    return Reliability(
        rate_total=rate_total, rate_net=rate_net, net_share=rate_net / rate_total, mtbf_s=mtbf_s,
        save_s=save_s, interval_s=interval_s, goodput=good, failure_loss=1.0 - good / ckpt_only,
    )
