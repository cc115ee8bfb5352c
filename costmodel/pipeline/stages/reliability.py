"""Stage 3, reliability: failure rates, checkpoint interval and goodput."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from costmodel.physics import media
from costmodel.physics import reliability as rel
from costmodel.pipeline.inputs import Inputs
from costmodel.pipeline.stages.topology import Topology

SECONDS_PER_HOUR = 3600.0
#: below this goodput the job makes no practical progress; the floor keeps every figure finite
MIN_GOODPUT = 1e-9


@dataclass(frozen=True)
class Reliability:
    """Failures of the job, each ``(S, F)``."""

    rate_total: np.ndarray  # job-interrupting failures [1/h]
    rate_net: np.ndarray  # of which the network's [1/h]
    net_share: np.ndarray  # the fabric's share of failures, hardware and soft: (rate_net + soft) / rate_total [0-1]
    mtbf_s: np.ndarray  # [s]
    save_s: np.ndarray  # checkpoint write time [s]
    interval_s: np.ndarray  # compute time between checkpoints [s]
    goodput: np.ndarray  # share of wall time that advances the job [0-1]
    failure_loss: np.ndarray  # share of busy time lost to failures [0-1]
    # by cause (:data:`costmodel.physics.reliability.CAUSES`)
    rates: MappingProxyType  # cause → job-interrupting failures [1/h]
    restart_by_cause: MappingProxyType  # cause → restart time [s]
    restart_s: np.ndarray  # rate-weighted mean restart time [s]
    spare_nodes: np.ndarray  # hot-spare servers [count]
    no_spare_prob: np.ndarray  # share of node-replacing failures finding no spare free [0-1]
    setup_s: np.ndarray  # lost before productive training, per run [s]


def reliability(p: Inputs, topo: Topology) -> Reliability:
    """Failure rate, Daly's checkpoint interval and the resulting goodput.

    Parameters
    ----------
    p : Inputs
        Broadcast inputs: failure rates per GPU, node, NIC port, transceiver, cable by media
        class, switch and (soft, per fabric) per GPU [1/h]; checkpoint size [B/parameter] and
        write speed [B/s per node]; base restart, initialisation per GPU, hang detection and
        server repair times [s]; hot-spare share of the nodes [0-1]; setup per run [s].
    topo : Topology
        Reads ``endpoints``, ``links``, ``transceivers`` (optical modules), ``node_modules``, ``switches``
        and ``bom`` (node links).

    Returns
    -------
    Reliability

    Notes
    -----
    Causes: GPU ``N g λ_gpu``, host ``N λ_node``, NIC ``E λ_nic``, links
    ``Σ_c L_c λ_c + X λ_x`` (DAC, active copper, AOC; ``X`` optical modules, a module failing
    whatever number of links it serves), switches
    ``S λ_sw``, soft (hung collectives) ``N g λ_soft``; ``Λ`` their sum, the network's
    ``Λ_net`` = NIC + links + switches. Restart of cause ``c``:
    ``R_c = R_0 + t_init N g + q_c P(K ≥ s) T_rep`` (+ the watchdog's timeout for soft ones),
    ``q_c`` the share that takes a server out (GPU, NIC 1; host its hardware share; links the
    node links' share; switches and soft 0), ``K ~ Poisson(Σ q_c Λ_c T_rep)`` the servers in
    repair, ``s = ⌈f N⌉`` hot spares; ``R = Σ Λ_c R_c / Λ``. ``M = 3600 / Λ`` [s];
    ``δ = bytes/param · P / (N · write speed)``; ``τ`` by Daly (2006, eq. 37);
    goodput ``max(τ / T_w, 1e-9)`` (Daly eq. 13); failure loss ``1 − goodput / (τ / (τ + δ))``.

    References
    ----------
    .. [1] J.T. Daly, "A higher order estimate of the optimum checkpoint interval for restart
       dumps", FGCS 22(3), 2006.
    .. [2] A. Dubey et al., "The Llama 3 Herd of Models", arXiv:2407.21783, 2024, Table 5.
    .. [3] Z. Jiang et al., "MegaScale", NSDI 2024 (initialisation time with the job's size).
    .. [4] R. Singh et al., "Surviving switch failures in cloud datacenters", CCR 51(2), 2021.
    """
    n = p.nodes
    rates, node_link_share, shape = _cause_rates(p, topo)
    rate_net = rates["nic"] + rates["links"] + rates["switches"]
    rate_total = sum(rates.values())
    restart_by_cause, spares, no_spare = _restarts(p, rates, node_link_share, shape)
    restart_s = rel.mean_restart(rates, restart_by_cause)
    mtbf_s = SECONDS_PER_HOUR / rate_total
    save_s = p.ckpt_bytes_per_param * p.params / (n * p.ckpt_write_Bps_per_node)
    interval_s = rel.daly_interval(save_s, mtbf_s)
    good = np.maximum(rel.goodput(interval_s, save_s, restart_s, mtbf_s), MIN_GOODPUT)
    ckpt_only = interval_s / (interval_s + save_s)
    return Reliability(
        rate_total=rate_total, rate_net=rate_net, net_share=(rate_net + rates["soft"]) / rate_total, mtbf_s=mtbf_s,
        save_s=save_s, interval_s=interval_s, goodput=good, failure_loss=1.0 - good / ckpt_only,
        rates=MappingProxyType(rates), restart_by_cause=MappingProxyType(restart_by_cause),
        restart_s=restart_s, spare_nodes=spares, no_spare_prob=no_spare,
        setup_s=np.broadcast_to(p.setup_s_per_run, shape),
    )


def _cause_rates(p: Inputs, topo: Topology) -> tuple[dict, np.ndarray, tuple[int, ...]]:
    """Job-interrupting failures by cause [1/h], broadcast to the stage's shape.

    Returns the rates, the share of link failures on node links (they take a server out) [0-1] and
    the shape.
    """
    n, g = p.nodes, p.gpus_per_node
    bom = topo.bom
    media_rates = {"dac": p.dac_fail_per_hour, "aec": p.aec_fail_per_hour, "aoc": p.aoc_fail_per_hour}
    links_rate = rel.link_failure_rate(topo.links, media_rates, topo.transceivers, p.xcvr_fail_per_hour)
    node_link_modules = media.modules(bom["node_fibre"], 1.0, p.switch_module_ports) + topo.node_modules
    node_links_rate = rel.link_failure_rate({c: bom[f"node_{c}"] for c in media_rates}, media_rates,
                                            node_link_modules, p.xcvr_fail_per_hour)
    rates = {
        "gpu": n * g * p.gpu_fail_per_hour,
        "host": n * p.node_fail_per_hour,
        "nic": topo.endpoints * p.net_fail_per_endpoint_hour,
        "links": links_rate,
        "switches": topo.switches * p.switch_fail_per_hour,
        "soft": n * g * p.soft_fail_per_gpu_hour,
    }
    shape = np.broadcast_shapes(*(np.shape(v) for v in rates.values()), np.shape(p.restart_s),
                                np.shape(p.setup_s_per_run), np.shape(p.node_repair_s))
    rates = {c: np.broadcast_to(np.asarray(v, dtype=float), shape) for c, v in rates.items()}
    node_link_share = np.where(links_rate > 0, node_links_rate / np.where(links_rate > 0, links_rate, 1.0), 0.0)
    return rates, node_link_share, shape


def _restarts(p: Inputs, rates: dict, node_link_share, shape: tuple[int, ...]) -> tuple[dict, np.ndarray, np.ndarray]:
    """Restart time by cause [s], hot spares [count] and the share of server-replacing failures that
    find no spare free [0-1]: base restart, initialisation per GPU, the repair when no spare is
    free (for the share of a cause's failures that take a server out), the watchdog for soft ones."""
    n, g = p.nodes, p.gpus_per_node
    replace_share = {"gpu": 1.0, "host": p.node_hw_share, "nic": 1.0, "links": node_link_share,
                     "switches": 0.0, "soft": 0.0}
    replacing = sum(rates[c] * replace_share[c] for c in rel.CAUSES)  # [1/h]
    spares = np.broadcast_to(rel.hot_spares(n, p.hot_spare_node_frac), shape)
    no_spare = rel.no_spare_probability(replacing * p.node_repair_s / SECONDS_PER_HOUR, spares)
    base = p.restart_s + p.init_s_per_gpu * n * g
    restart_by_cause = {c: base + replace_share[c] * no_spare * p.node_repair_s
                        + (p.hang_detect_s if c == "soft" else 0.0) for c in rel.CAUSES}
    return {c: np.broadcast_to(v, shape) for c, v in restart_by_cause.items()}, spares, no_spare


def cause_metrics(r: Reliability, busy_hours: np.ndarray, run_hours: np.ndarray) -> dict[str, np.ndarray]:
    """Per-fabric figures of the reliability table: interruptions per year by cause, restart
    hours (mean and by cause), hot spares, the share of node failures waiting for a repair, and
    the setup hours per run (their share of the run)."""
    out = {f"interruptions_{c}_per_year": r.rates[c] * busy_hours for c in rel.CAUSES}
    out.update({f"restart_hours_{c}": r.restart_by_cause[c] / SECONDS_PER_HOUR for c in rel.CAUSES})
    out.update(restart_hours=r.restart_s / SECONDS_PER_HOUR, spare_nodes=r.spare_nodes,
               no_spare_share=r.no_spare_prob, setup_hours_per_run=r.setup_s / SECONDS_PER_HOUR,
               setup_share_of_run=r.setup_s / SECONDS_PER_HOUR / run_hours)
    return out
