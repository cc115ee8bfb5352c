"""The source article's claims beside the model's figures, with a plain verdict.

A claim is *reproduced* when the model's figure lies within ±25 % of the claimed value (or of
the claimed range). Otherwise the table says so and explains, with the model's own numbers,
what separates the two. Money claims are in CNY; model money is converted from the price
book's currency with the rates of defaults.yaml (display only).
"""

from __future__ import annotations

from dataclasses import dataclass

from .api import evaluate
from .catalog import load_catalog
from .presets import Claim, get_preset, list_presets
from .results import Result

TOLERANCE = 0.25


@dataclass(frozen=True)
class ClaimCheck:
    preset: str
    metric: str
    fabric: str
    text: str
    text_zh: str
    claimed: float | tuple[float, float]
    modelled: float
    reproduced: bool
    explanation: str


def to_cny(amount: float, currency: str) -> float:
    """Convert ``amount`` from ``currency`` to CNY with the catalog's reference rates."""
    fx = load_catalog().fx_per_usd
    return amount / fx[currency].typical * fx["CNY"].typical


def _modelled(claim: Claim, res: Result) -> float:
    f = res.fabric(claim.fabric)
    base = res.fabric(res.baseline)
    m = f.metrics
    cur = res.currency
    runs = m["runs_per_year"] or float("nan")
    metric = claim.metric
    if metric == "run_days_ratio":
        return base.metrics["run_days"] / m["run_days"]
    if metric == "network_interruptions_per_run":
        return m["network_interruptions_per_year"] / runs
    if metric == "network_lost_hours_per_run":
        return m["network_lost_hours_per_year"] / runs
    if metric == "network_interruption_cost_per_run_cny":
        return to_cny(m["network_lost_hours_per_year"] * m["value_of_cluster_hour"] / runs, cur)
    if metric == "cpu_share":
        return m["cpu_overhead_share"]
    if metric == "latency_us":
        return m["latency_us"]
    if metric == "network_capex_per_node_cny":
        return to_cny(f.network_capex_purchase / res.nodes, cur)
    if metric == "network_capex_ratio":
        return f.network_capex_purchase / res.fabric(claim.other).network_capex_purchase
    if metric == "tco_delta_cny":
        return to_cny(f.delta_vs_baseline, cur)
    if metric == "tco_total_cny":
        return to_cny(f.tco_total, cur)
    if metric == "energy_saving_per_year_cny":
        return to_cny((base.breakdown["energy"] - f.breakdown["energy"]) / res.horizon_years, cur)
    raise ValueError(metric)


def _within(value: float, claimed) -> bool:
    lo, hi = (claimed, claimed) if isinstance(claimed, (int, float)) else claimed
    lo_ok = value >= (lo * (1 - TOLERANCE) if lo >= 0 else lo * (1 + TOLERANCE))
    hi_ok = value <= (hi * (1 + TOLERANCE) if hi >= 0 else hi * (1 - TOLERANCE))
    return lo_ok and hi_ok


def _money(amount: float, currency: str) -> str:
    return f"{to_cny(amount, currency) / 1e6:+.2f} M CNY"


def _cny(amount: float, currency: str) -> str:
    return f"{to_cny(amount, currency):,.0f} CNY"


def _explain(claim: Claim, res: Result, value: float, ok: bool) -> str:
    """Why the model's figure is what it is, in the model's own numbers."""
    f = res.fabric(claim.fabric)
    base = res.fabric(res.baseline)
    m, b = f.metrics, base.metrics
    cur = res.currency
    metric = claim.metric
    if metric == "run_days_ratio":
        need = claim.claimed if isinstance(claim.claimed, float | int) else claim.claimed[0]
        exposed_needed = need * m["step_time_s"] - (b["step_time_s"] - b["exposed_comm_s"])
        text = (
            f"step on {base.id}: compute {b['compute_time_s']:.1f} s, network {b['comm_time_s']:.1f} s "
            f"({b['allreduce_busbw_gbs']:.1f} GB/s busbw) of which {b['exposed_comm_s']:.1f} s is not "
            f"hidden behind the backward pass; on {f.id}: network {m['comm_time_s']:.1f} s, "
            f"{m['exposed_comm_s']:.1f} s exposed"
        )
        if not ok:
            text += (f". The claimed ratio would need ≈ {exposed_needed:.1f} s of exposed network time per "
                     f"step on {base.id}, more than its whole modelled all-reduce")
        return text
    if metric == "cpu_share":
        text = (f"{f.id} carries {m['nic_gbps']:.0f} Gb/s per node at {m['allreduce_busbw_gbs']:.1f} GB/s "
                f"busbw; the transport uses ≈ {m['cpu_cores_used']:.2f} host cores on average (cores per "
                f"100 Gb/s: Cai et al. 2021 for kernel TCP, kernel bypass for RDMA)")
        if not ok:
            text += "; the article's figure is far above what published host-stack measurements give"
        return text
    if metric == "latency_us":
        base_us = load_catalog().constant("nccl_base_latency_us")
        return (f"NCCL per-step software latency (≈ {base_us:g} µs, tuning.cc) + fabric latency (perftest) + "
                f"{2 * m['tiers'] - 1:.0f} switch hop(s) = {m['latency_us']:.1f} µs")
    if metric in ("tco_delta_cny", "tco_total_cny", "energy_saving_per_year_cny"):
        diffs = {k: f.breakdown[k] - base.breakdown[k] for k in f.breakdown}
        top = sorted(diffs.items(), key=lambda kv: -abs(kv[1]))[:3]
        parts = ", ".join(f"{k} {_money(v, cur)}" for k, v in top)
        text = f"{f.id} minus {base.id} over {res.horizon_years} years ({res.scope} scope): {parts}"
        if metric == "energy_saving_per_year_cny":
            text += (f"; busy {b['busy_hours_per_year']:,.0f} h/year on {base.id} vs "
                     f"{m['busy_hours_per_year']:,.0f} h on {f.id}")
        return text
    if metric.startswith("network_interruption") or metric == "network_lost_hours_per_run":
        per_run = m["network_interruptions_per_year"] / max(m["runs_per_year"], 1e-12)
        text = (f"network faults (NIC, cable, switch: Llama 3 rate per NIC port) cause "
                f"{per_run:.3f} interruptions per {m['run_days']:.1f}-day run on {f.id}, "
                f"{m['network_interruptions_per_year'] / max(m['interruptions_per_year'], 1e-12):.1%} of all; "
                f"with a checkpoint every {m['checkpoint_interval_h']:.2f} h (Daly 2006) each costs half an "
                f"interval plus the restart")
        if not ok:
            text += ("; the article's hours lost per interruption imply restarts from days-old checkpoints, "
                     "and its count implies network fault rates far above published fleet data")
        return text
    if metric in ("network_capex_per_node_cny", "network_capex_ratio"):
        n = res.nodes
        return (f"{f.id} per node: NICs {_cny(m['capex_nics'] / n, cur)}, switches "
                f"{_cny(m['capex_switches'] / n, cur)} ({m['switches']:.0f} in all), cables and optics "
                f"{_cny(m['capex_links'] / n, cur)}, installation {_cny(m['capex_install'] / n, cur)} "
                f"({res.price_book} price book)")
    return ""


def check_preset(preset_id: str) -> list[ClaimCheck]:
    """Every claim of one preset beside the model's figure."""
    preset = get_preset(preset_id)
    res = evaluate(preset.scenario)
    out = []
    for claim in preset.claims:
        value = _modelled(claim, res)
        ok = _within(value, claim.claimed)
        out.append(ClaimCheck(
            preset=preset_id, metric=claim.metric, fabric=claim.fabric, text=claim.text, text_zh=claim.text_zh,
            claimed=claim.claimed, modelled=value, reproduced=ok,
            explanation=_explain(claim, res, value, ok),
        ))
    return out


def check_all() -> list[ClaimCheck]:
    """Claims of every preset."""
    return [c for pid in list_presets() for c in check_preset(pid)]
