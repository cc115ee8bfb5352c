"""Stage 7, metrics: the per-fabric figures the views, tables and exports show."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from costmodel.money import unit_cost
from costmodel.money.ledger import TIME_CATEGORIES
from costmodel.physics import host_link
from costmodel.pipeline.inputs import GIGA, Inputs
from costmodel.pipeline.stages.batch import fields_of
from costmodel.pipeline.stages.cash_flows import CashFlows
from costmodel.pipeline.stages.cost_rates import CostRates
from costmodel.pipeline.stages.reliability import SECONDS_PER_HOUR, Reliability, cause_metrics
from costmodel.pipeline.stages.schedule import HOURS_PER_YEAR, Schedule
from costmodel.pipeline.stages.step_time import StepTime
from costmodel.pipeline.stages.topology import Topology

HOURS_PER_DAY = 24.0
MICRO = 1e-6


@dataclass(frozen=True)
class Metrics:
    """Every metric by name (:data:`costmodel.pipeline.results.METRIC_KEYS` and ``fits_plan``), ``(S, F)``."""

    values: MappingProxyType


def metrics(p: Inputs, topo: Topology, step: StepTime, rel: Reliability, sched: Schedule,
            rates: CostRates, flows: CashFlows, horizon_years: int) -> Metrics:
    """Performance, plan, reliability, bill-of-materials and per-unit cost figures.

    Parameters
    ----------
    p : Inputs
    topo, step, rel, sched, rates, flows : earlier stages
    horizon_years : int

    Returns
    -------
    Metrics

    Notes
    -----
    Per-unit figures price the hours a run holds the cluster (:mod:`costmodel.money.unit_cost`): a
    cluster-hour costs the cash cost ``TCO − time costs`` of the cluster kept training, over the
    horizon's hours (CPU overhead, waiting on the network, interruptions left out: slowness and
    lost time already show as longer runs); cost per run ``= cost per cluster-hour · T_run``, per
    million tokens ``= cost per run / (tokens / 10⁶)``, per useful GPU-hour ``= cost per cluster-hour
    / (N g · goodput · (1 − setup share) · utilisation)``. The schedule sets the runs per year, not
    these. MFU on model FLOPs, HFU on the FLOPs executed (with recomputation), both from the
    step-time stage.

    References
    ----------
    .. [1] A. Chowdhery et al., "PaLM: Scaling Language Modeling with Pathways",
       arXiv:2204.02311, 2022, appendix B (model FLOPs utilisation).
    """
    cash = flows.tco - sum(flows.breakdown[c] for c in TIME_CATEGORIES)
    values = {
        **_performance(p, step),
        **_plan_and_reliability(rel, sched),
        **_hardware_and_drivers(p, topo, rates),
        **_unit_costs(p, step, rel, sched, rates, cash, float(horizon_years)),
        **cause_metrics(rel, sched.busy_hours, sched.run_hours),  # reliability by fabric
    }
    return Metrics(values=MappingProxyType(values))


def _performance(p: Inputs, step: StepTime) -> dict:
    """Network, step time [s], utilisation, MFU/HFU [0-1], layout and GPU memory [GB] figures; the host
    slot's achieved rate per NIC [GB/s] and whether it, not the port, limits the NIC (1/0)."""
    slot = host_link.slot_bytes_s(p.nic_pcie_gen, p.nic_pcie_lanes, p.pcie_eff)
    shape = np.shape(step.t_step)
    return {
        "nic_gbps": p.nics_per_node * p.port_bps / GIGA,
        "allreduce_busbw_gbs": step.busbw_Bps / GIGA,
        "scaleout_gbs_per_gpu": step.node_bw_Bps / p.gpus_per_node / GIGA,
        "host_slot_gbs": np.broadcast_to(slot / GIGA, shape),
        "slot_limited": np.broadcast_to(host_link.slot_limited(p.port_bps, slot), shape),
        "latency_us": step.alpha_s / MICRO,
        "effective_efficiency": step.efficiency,
        "step_time_s": step.t_step,
        "compute_time_s": step.t_compute,
        "comm_time_s": step.t_comm,
        "exposed_comm_s": step.t_exposed,
        "bytes_per_node_step": step.bytes_node,
        "gpu_utilization": step.utilization,
        "mfu": step.mfu,
        "hfu": step.hfu,
        "kernel_efficiency": step.kernel_efficiency,
        "layout_tp": step.tp,
        "layout_pp": step.pp,
        "layout_dp": step.dp,
        "layout_vp": step.vp,
        "layout_zero": step.zero,
        "layout_micro_seqs": step.micro_seqs,
        "layout_microbatches": step.microbatches,
        "layout_recompute": step.recompute,
        "memory_gb_per_gpu": step.memory_bytes / GIGA,
        "memory_usable_gb": step.memory_usable_bytes / GIGA,
        "fits_memory": step.fits_memory,
        "scaleout_share": step.scaleout_share,
    }


def _plan_and_reliability(rel: Reliability, sched: Schedule) -> dict:
    """Run length [days], runs and busy hours per year, plan fit, goodput [0-1], failures and lost hours."""
    return {
        "run_days": sched.run_hours / HOURS_PER_DAY,
        "runs_per_year": sched.runs_per_year,
        "busy_hours_per_year": sched.busy_hours,
        "fits_plan": sched.fits.astype(float),
        "plan_load": sched.required_hours / HOURS_PER_YEAR,
        "goodput": rel.goodput,
        "mtbf_hours": rel.mtbf_s / SECONDS_PER_HOUR,
        "checkpoint_interval_h": rel.interval_s / SECONDS_PER_HOUR,
        "checkpoint_save_s": rel.save_s,
        "interruptions_per_year": sched.interruptions_per_year,
        "network_interruptions_per_year": rel.rate_net * sched.busy_hours,
        "lost_hours_per_year": sched.lost_hours,
        "network_lost_hours_per_year": sched.network_lost_hours,
    }


def _hardware_and_drivers(p: Inputs, topo: Topology, rates: CostRates) -> dict:
    """Bill of materials [count], network power [kW], energy [kWh/yr], CPU overhead, capital by part
    [currency] and the cost drivers (value of a cluster hour, hours waiting on the network per year)."""
    a = rates.amounts
    return {
        "switches": topo.switches,
        "tiers": topo.tiers,
        "transceivers": topo.transceivers,
        "cables": topo.node_links,
        "network_power_kw": rates.network_kw,
        "energy_kwh_per_year": a["energy_kwh"],
        "cpu_overhead_share": rates.drivers["cpu_share"],
        "cpu_cores_used": rates.drivers["cpu_share"] * p.host_cpu_cores,
        "capex_nics": a["capex_nics"],
        "capex_switches": a["capex_switches"],
        "capex_links": a["capex_links"],
        "capex_install": a["capex_install"],
        "value_of_cluster_hour": rates.drivers["vch"],
        "network_wait_hours_per_year": rates.drivers["wait_h"],
    }


def _unit_costs(p: Inputs, step: StepTime, rel: Reliability, sched: Schedule, rates: CostRates, cash,
                horizon: float) -> dict:
    """The cost of a cluster-hour of training, of a run, of a million tokens and of a useful GPU-hour
    [currency] (:mod:`costmodel.money.unit_cost`: the same figures under every schedule); ∞ when a
    run never ends or no hour is useful. Setup hours hold the cluster but are not useful."""
    steps = unit_cost.evaluate(fields_of(p) | rates.drivers | {"cash_total": cash, "horizon": horizon})
    unit = {k: steps[k] for k in unit_cost.FIGURES}
    setup_share = rel.setup_s / SECONDS_PER_HOUR / sched.run_hours
    useful_gpus = p.nodes * p.gpus_per_node * rel.goodput * (1.0 - setup_share) * step.utilization
    with np.errstate(divide="ignore", invalid="ignore"):
        per_useful = np.where(useful_gpus > 0, unit["cost_per_cluster_hour"] / useful_gpus, np.inf)
    return {**unit, "cost_per_useful_gpu_hour": per_useful, "cash_total": cash}
