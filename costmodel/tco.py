"""TCO assembly: one vectorised pass from :class:`~costmodel.inputs.Inputs` to every result.

``compute(inputs, structure)`` is the single code path behind ``evaluate`` (S = 1), ``sweep``
(S = node counts) and ``monte_carlo`` (S = draws). Every output is an array of shape
``(S, F)``; cash flows are kept as per-category amounts times a year schedule, so totals and
NPV need no ``(S, F, years)`` array unless yearly figures are asked for.

Money is in the price book's currency; energy in kWh; time in hours unless named ``_s``.
Cost categories (the breakdown): ``compute_capex``, ``network_capex``, ``energy``,
``cpu_overhead``, ``interruptions``, ``operations``. Two of them are opportunity costs, not
cash: ``cpu_overhead`` (host CPU capacity and power the transport takes from other work) and
``interruptions`` (lost cluster-hours at the value of a cluster-hour). ``cash_total`` leaves
them out; per-unit figures (cost per run, per million tokens, per useful GPU-hour) use it,
because lost time and slowness already show there as fewer runs. In ``fabric`` scope only what the network
causes is counted: network capex, network power plus the cluster's power while it waits for
the network, CPU overhead, network-caused interruptions, network maintenance and staff.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import finance, performance, reliability, topology
from .cluster_hour import rental_value
from .inputs import GIGA, Inputs, Structure

HOURS_PER_YEAR = 8760.0
SECONDS_PER_HOUR = 3600.0
HOURS_PER_DAY = 24.0
MIN_GOODPUT = 1e-9
CATEGORIES = ("compute_capex", "network_capex", "energy", "cpu_overhead", "interruptions",
              "operations")
CAPEX_CATEGORIES = ("compute_capex", "network_capex")


@dataclass(frozen=True)
class Outputs:
    """Every model result, arrays of shape ``(S, F)`` unless noted."""

    structure: Structure
    amounts: dict[str, np.ndarray]  # per category: capex total, or recurring cost per year
    capex_schedule: np.ndarray  # (S, 1, H+1) share of capex paid each year
    recurring_schedule: np.ndarray  # (H+1,)
    discount: np.ndarray  # (S, 1, H+1)
    tco: np.ndarray
    pv_cost: np.ndarray
    breakdown: dict[str, np.ndarray]  # per category, summed over the horizon
    metrics: dict[str, np.ndarray]

    def yearly(self) -> dict[str, np.ndarray]:
        """Cost per category and year, arrays of shape ``(S, F, H+1)``."""
        out = {}
        for cat, amount in self.amounts.items():
            sched = self.capex_schedule if cat in CAPEX_CATEGORIES else self.recurring_schedule
            out[cat] = amount[..., None] * sched
        return out

    def yearly_total(self) -> np.ndarray:
        """Total cost per year, ``(S, F, H+1)``."""
        return sum(self.yearly().values())


def compute(p: Inputs, st: Structure) -> Outputs:
    """Evaluate the whole model for every row and fabric (see module docstring)."""
    n, g, r = p.nodes, p.gpus_per_node, p.nics_per_node
    fabric_only = st.scope == "fabric"

    # --- topology
    endpoints = n * r
    bom = topology.bill_of_materials(endpoints, p.switch_radix)
    hops = 2.0 * bom["tiers"] - 1.0

    # --- performance
    fabric_latency = p.latency_s + hops * p.hop_latency_s
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
    st_ = performance.step_time(
        parallelism=st.parallelism, nodes=n, gpus_per_node=g, params=p.params,
        batch_tokens=p.batch_tokens, grad_bytes=p.grad_bytes, act_bytes=p.act_bytes,
        hidden=p.hidden, pipeline_stages=p.pipeline_stages, microbatches=p.microbatches,
        t_compute=t_c, overlap_frac=p.overlap_frac, bucket_bytes=p.bucket_bytes,
        node_bw_Bps=node_bw, intra_node_Bps=p.intra_node_Bps, alpha_s=alpha,
    )
    t_step = st_["t_step"]
    utilization = t_c / t_step
    wait_share = st_["t_exposed"] / t_step

    # --- reliability
    rate_total, rate_net = reliability.job_failure_rate(
        n, g, endpoints, p.gpu_fail_per_hour, p.node_fail_per_hour, p.net_fail_per_endpoint_hour
    )
    mtbf_s = SECONDS_PER_HOUR / rate_total
    save_s = p.ckpt_bytes_per_param * p.params / (n * p.ckpt_write_Bps_per_node)
    interval_s = reliability.daly_interval(save_s, mtbf_s)
    # Below MIN_GOODPUT the job makes no practical progress; the floor keeps every figure finite.
    good = np.maximum(reliability.goodput(interval_s, save_s, p.restart_s, mtbf_s), MIN_GOODPUT)
    ckpt_only = interval_s / (interval_s + save_s)
    failure_loss = 1.0 - good / ckpt_only

    # --- time and plan
    run_hours = p.tokens_per_run / p.batch_tokens * t_step / SECONDS_PER_HOUR / good
    if st.schedule == "always_busy":
        required = HOURS_PER_YEAR + 0.0 * run_hours
    else:
        required = p.runs_per_year * run_hours
    busy_h = np.minimum(required, HOURS_PER_YEAR)
    runs_per_year = busy_h / run_hours
    fits = required <= HOURS_PER_YEAR * (1.0 + 1e-12)
    interruptions_per_year = rate_total * busy_h
    lost_hours = busy_h * failure_loss

    # --- money per year and capex
    gpu_busy_kw = g * p.gpu_tdp_kw * p.gpu_busy_frac + p.host_power_kw
    gpu_idle_kw = g * p.gpu_tdp_kw * p.gpu_idle_frac + p.host_power_kw
    net_kw = (endpoints * p.nic_power_w + bom["switches"] * p.switch_power_w
              + bom["transceivers"] * p.optic_power_w + bom["node_links"] * p.cable_power_w) / 1000.0
    net_kwh = net_kw * HOURS_PER_YEAR * p.pue
    wait_kwh = n * gpu_busy_kw * busy_h * wait_share * p.pue
    cluster_kwh = n * (busy_h * gpu_busy_kw + (HOURS_PER_YEAR - busy_h) * gpu_idle_kw) * p.pue
    energy_kwh = net_kwh + (wait_kwh if fabric_only else cluster_kwh)
    energy = energy_kwh * p.electricity_price

    capex_items = {
        "capex_nics": endpoints * p.nic_price,
        "capex_switches": bom["switches"] * p.switch_price,
        "capex_links": bom["node_links"] * p.cable_price + bom["transceivers"] * p.optic_price,
        "capex_install": n * p.install_per_node,
    }
    network_capex = sum(capex_items.values())
    compute_capex = n * p.server_price * (0.0 if fabric_only else 1.0) + 0.0 * network_capex

    traffic_gbps = node_bw * 8.0 / GIGA
    duty = np.minimum(1.0, st_["t_wire"] / t_step)
    cpu_share = np.minimum(1.0, p.cpu_cores_per_100gbps * traffic_gbps / 100.0 * duty
                           / p.host_cpu_cores)
    horizon = float(st.horizon_years)
    cpu_overhead = cpu_share * n * (
        p.server_price * p.host_cpu_cost_share / horizon
        + p.host_power_kw * p.host_cpu_power_share * busy_h * p.pue * p.electricity_price
    )

    vch = np.where(np.isnan(p.value_of_cluster_hour), rental_value(p.rental_per_gpu_hour, n, g),
                   p.value_of_cluster_hour)
    net_share = rate_net / rate_total
    network_lost_hours = lost_hours * net_share
    interruptions = (network_lost_hours if fabric_only else lost_hours) * vch

    maintained = network_capex + (0.0 if fabric_only else 1.0) * n * p.server_price
    staff = n * p.network_ops_per_node_year * p.ops_factor
    if not fabric_only:
        staff = staff + n * p.cluster_ops_per_node_year
    operations = p.maintenance_frac * maintained + staff

    amounts = {
        "compute_capex": compute_capex,
        "network_capex": network_capex,
        "energy": energy,
        "cpu_overhead": cpu_overhead,
        "interruptions": interruptions,
        "operations": operations,
    }
    # every array may vary by row (a sweep of one price, say): broadcast to the common shape
    shape = np.broadcast_shapes(t_step.shape, *(np.shape(v) for v in amounts.values()))
    amounts = {k: np.broadcast_to(v, shape).astype(float) for k, v in amounts.items()}

    # --- finance: totals and present values from the schedules
    h = st.horizon_years
    cap_sched = finance.capex_schedule(h, st.payment, p.instalment_months, p.instalment_rate,
                                       p.residual_frac)  # (S,1,H+1)
    rec_sched = finance.recurring_schedule(h)
    disc = finance.discount_factors(p.discount_rate, h)  # (S,1,H+1)
    cap_total = cap_sched.sum(axis=-1)
    cap_pv = (cap_sched * disc).sum(axis=-1)
    rec_total = float(rec_sched.sum())
    rec_pv = (rec_sched * disc).sum(axis=-1)
    breakdown, tco, pv = {}, 0.0, 0.0
    for cat, amount in amounts.items():
        is_capex = cat in CAPEX_CATEGORIES
        breakdown[cat] = amount * (cap_total if is_capex else rec_total)
        tco = tco + breakdown[cat]
        pv = pv + amount * (cap_pv if is_capex else rec_pv)

    # Per-unit figures divide the cash cost (without the opportunity costs of CPU overhead and
    # interruptions) by the work done: slowness and lost time already show as fewer runs.
    cash = tco - breakdown["cpu_overhead"] - breakdown["interruptions"]
    runs_total = runs_per_year * horizon
    useful_gpu_h = n * g * busy_h * good * utilization * horizon
    with np.errstate(divide="ignore", invalid="ignore"):
        cost_per_run = np.where(runs_total > 0, cash / runs_total, np.inf)
    metrics = {
        "nic_gbps": r * p.port_bps / GIGA + 0.0 * t_step,
        "allreduce_busbw_gbs": st_["busbw_Bps"] / GIGA,
        "latency_us": alpha / 1e-6 + 0.0 * t_step,
        "effective_efficiency": eta + 0.0 * t_step,
        "step_time_s": t_step,
        "compute_time_s": t_c + 0.0 * t_step,
        "comm_time_s": st_["t_comm"],
        "exposed_comm_s": st_["t_exposed"],
        "bytes_per_node_step": st_["bytes_node"],
        "gpu_utilization": utilization,
        "mfu": p.compute_efficiency * utilization,
        "run_days": run_hours / HOURS_PER_DAY,
        "runs_per_year": runs_per_year,
        "busy_hours_per_year": busy_h,
        "fits_plan": fits.astype(float),
        "plan_load": required / HOURS_PER_YEAR,
        "goodput": good,
        "mtbf_hours": mtbf_s / SECONDS_PER_HOUR,
        "checkpoint_interval_h": interval_s / SECONDS_PER_HOUR,
        "checkpoint_save_s": save_s + 0.0 * t_step,
        "interruptions_per_year": interruptions_per_year,
        "network_interruptions_per_year": rate_net * busy_h,
        "lost_hours_per_year": lost_hours,
        "network_lost_hours_per_year": network_lost_hours,
        "switches": bom["switches"] + 0.0 * t_step,
        "tiers": bom["tiers"] + 0.0 * t_step,
        "transceivers": bom["transceivers"] + 0.0 * t_step,
        "cables": bom["node_links"] + 0.0 * t_step,
        "network_power_kw": net_kw + 0.0 * t_step,
        "energy_kwh_per_year": energy_kwh,
        "cpu_overhead_share": cpu_share,
        "cpu_cores_used": cpu_share * p.host_cpu_cores,
        **capex_items,
        "value_of_cluster_hour": vch + 0.0 * t_step,
        "cost_per_run": cost_per_run,
        "cost_per_mtok": cost_per_run / (p.tokens_per_run / 1e6),
        "cost_per_useful_gpu_hour": np.where(useful_gpu_h > 0, cash / useful_gpu_h, np.inf),
        "cash_total": cash,
    }
    shape = np.broadcast_shapes(shape, *(np.shape(v) for v in metrics.values()))
    metrics = {k: np.broadcast_to(v, shape) for k, v in metrics.items()}
    return Outputs(
        structure=st, amounts=amounts, capex_schedule=cap_sched, recurring_schedule=rec_sched,
        discount=disc, tco=tco, pv_cost=pv, breakdown=breakdown, metrics=metrics,
    )
