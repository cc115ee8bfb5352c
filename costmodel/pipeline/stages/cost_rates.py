"""Stage 5, cost rates: the drivers of the money ledger and every amount it defines."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costmodel.money import ledger
from costmodel.money.cluster_hour import rental_value
from costmodel.pipeline.inputs import GIGA, Inputs
from costmodel.pipeline.stages.batch import fields_of
from costmodel.pipeline.stages.reliability import Reliability
from costmodel.pipeline.stages.schedule import HOURS_PER_YEAR, Schedule
from costmodel.pipeline.stages.step_time import StepTime
from costmodel.pipeline.stages.topology import Topology

W_PER_KW = 1000.0


@dataclass(frozen=True)
class CostRates:
    """Drivers and ledger amounts, each ``(S, F)``.

    ``drivers`` are the non-input names the ledger's formulas read (see :mod:`costmodel.money.ledger`);
    ``amounts`` holds every ledger entry: capex categories [currency], recurring ones
    [currency/year] and their parts.
    """

    network_kw: np.ndarray  # network power [kW]
    drivers: dict[str, np.ndarray | float]
    amounts: dict[str, np.ndarray]


def cost_rates(p: Inputs, topo: Topology, step: StepTime, rel: Reliability, sched: Schedule,
               scope: str | np.ndarray, horizon_years: int) -> CostRates:
    """Evaluate the money ledger on the inputs and the physical stages' results.

    Parameters
    ----------
    p : Inputs
        Broadcast inputs: prices [currency], powers [W, kW], the facility power and price inputs
        (overhead ratio, energy price [currency/kWh]), staff [currency/node-year], CPU shares [0-1].
    topo, step, rel, sched : earlier stages
    scope : str or ndarray
        ``cluster`` (the whole cluster's costs) or ``fabric`` (only what the network causes); or a
        boolean array broadcasting to ``(S, F)``, True where a row is costed in ``fabric`` scope
        (one batch holding rows of both scopes, see :class:`costmodel.pipeline.tco.Modes`).
    horizon_years : int

    Returns
    -------
    CostRates

    Notes
    -----
    Drivers: network power of the installed fabric ``(E P_nic + S P_sw + (X_sw + ρ X_node) P_optic + C_dac P_cable
    + C_aec P_aec + C_aoc P_aoc) / 1000`` [kW] over 8760 h (spares on the shelf draw nothing); the
    counts bought (spares included) for capex: switches, copper cables (DAC and active copper),
    AOCs and optical modules at the switches and at the servers (a server-side module priced and
    powered per port as the switch-side one: × ``module_port_ratio`` = its ports / the switch module's);
    site energy before the facility overhead — cluster scope ``N (busy · P_busy + (8760 − busy) P_idle)``, fabric
    scope ``N P_busy · busy · wait share`` (the cluster waiting on the network); CPU share
    ``min(1, cores/100G · traffic · duty / cores)``; value of a cluster-hour (rental × GPUs when
    not given); lost hours (the network's only in fabric scope); hours waiting on the network
    ``busy · T_exposed / T_step`` (every scope: the wait is the network's); for the cost of a run
    (:mod:`costmodel.money.unit_cost`) the site energy of a year kept training and the run's hours.
    The amounts are the formulas of :data:`costmodel.money.ledger.ENTRIES`, evaluated in order.

    References
    ----------
    .. [1] The Green Grid, "PUE: A comprehensive examination of the metric", White Paper 49, 2012.
    .. [2] Q. Cai et al., "Understanding host network stack overheads", SIGCOMM 2021 (CPU cores
       per Gb/s of TCP traffic).
    """
    fabric_only = (scope == "fabric") if isinstance(scope, str) else np.asarray(scope, dtype=bool)
    cluster = 1.0 - np.asarray(fabric_only, dtype=float)
    cluster = float(cluster) if cluster.ndim == 0 else cluster  # 1 in cluster scope, 0 in fabric scope
    n, g = p.nodes, p.gpus_per_node
    busy_h, links = sched.busy_hours, topo.links
    net_kw = _network_kw(p, topo)
    rental = rental_value(p.rental_per_gpu_hour, n, g)
    vch = np.where(np.isnan(p.value_of_cluster_hour), rental, p.value_of_cluster_hour)
    # switches on site are reused by Ethernet-family fabrics whose port rate they support
    reuse = p.reuse_existing_switches * p.ethernet * (p.port_bps <= p.existing_switch_gbps * GIGA * (1.0 + 1e-9))
    drivers = {
        "scope_cluster": cluster,
        "endpoints": topo.endpoints,
        "spare_nodes": rel.spare_nodes,  # hot spares
        "switches": topo.switches_bought,
        # bill of materials: media by class, links to install, reused switches, front end
        "reused_switches": topo.switches_bought * reuse,
        "dac_cables": topo.dac_bought,
        "aec_cables": topo.aec_bought,
        "aoc_cables": topo.aoc_bought,
        "switch_modules": topo.switch_modules_bought,
        "node_modules": topo.node_modules_bought,
        "module_port_ratio": p.node_module_ports / p.switch_module_ports,
        "fibre_links": links["fibre"],
        "links": topo.node_links + topo.switch_links,
        "frontend_nodes": n * p.frontend_network * cluster,
        "cooled_kw": p.build_cooling * (net_kw + cluster * n * topo.server_kw),
        "kwh_network": net_kw * HOURS_PER_YEAR,
        "kwh_site": _site_kwh(p, step, busy_h, fabric_only),
        "kwh_site_busy": _site_kwh(p, step, HOURS_PER_YEAR, fabric_only),  # the same, training all year
        "run_h": sched.run_hours,
        "cpu_share": _cpu_share(p, step),
        "busy_h": busy_h,
        "lost_h": np.where(fabric_only, sched.network_lost_hours, sched.lost_hours),
        "wait_h": busy_h * step.wait_share,
        "vch": vch,
    }
    amounts = ledger.evaluate_amounts(fields_of(p) | drivers)
    return CostRates(network_kw=net_kw, drivers=drivers, amounts=amounts)


def _network_kw(p: Inputs, topo: Topology):
    """Power of the installed fabric [kW]: NICs, switches, optical modules (a server-side one at the
    switch-side module's power per port) and powered cables (spares on
    the shelf draw nothing)."""
    links = topo.links
    return (topo.endpoints * p.nic_power_w + topo.switches * p.switch_power_w
            + (topo.switch_modules + topo.node_modules * p.node_module_ports / p.switch_module_ports) * p.optic_power_w
            + links["dac"] * p.cable_power_w
            + links["aec"] * p.aec_power_w + links["aoc"] * p.aoc_power_w) / W_PER_KW


def _site_kwh(p: Inputs, step: StepTime, busy_h, fabric_only):
    """GPU nodes' energy per year before the facility overhead [kWh]: busy and idle hours in cluster
    scope, only the hours waiting on the network in fabric scope (``fabric_only`` True)."""
    n, g = p.nodes, p.gpus_per_node
    gpu_busy_kw = g * p.gpu_tdp_kw * p.gpu_busy_frac + p.host_power_kw
    gpu_idle_kw = g * p.gpu_tdp_kw * p.gpu_idle_frac + p.host_power_kw
    return np.where(fabric_only, n * gpu_busy_kw * busy_h * step.wait_share,
                    n * (busy_h * gpu_busy_kw + (HOURS_PER_YEAR - busy_h) * gpu_idle_kw))


def _cpu_share(p: Inputs, step: StepTime):
    """Share of a node's CPU cores the network takes [0-1]: cores per 100 Gb/s of traffic while the
    wire is busy, plus the proxy cores per GPU while collectives are in flight."""
    traffic_gbps = step.node_bw_Bps * 8.0 / GIGA
    duty = np.minimum(1.0, step.t_wire / step.t_step)
    busy = np.minimum(1.0, step.t_comm / step.t_step)  # share of the step with collectives in flight
    cores = p.cpu_cores_per_100gbps * traffic_gbps / 100.0 * duty + p.proxy_cores_per_gpu * p.gpus_per_node * busy
    return np.minimum(1.0, cores / p.host_cpu_cores)
