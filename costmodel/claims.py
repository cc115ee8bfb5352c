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
    if metric == "interruptions_per_run":
        return m["interruptions_per_year"] / runs
    if metric == "lost_hours_per_run":
        return m["lost_hours_per_year"] / runs
    if metric == "interruption_cost_per_run_cny":
        return to_cny(f.breakdown["interruptions"] / res.horizon_years / runs, cur)
    if metric == "cpu_share":
        return m["cpu_overhead_share"]
    if metric == "latency_us":
        return m["latency_us"]
    if metric == "network_capex_per_node_cny":
        return to_cny(f.network_capex_purchase / res.extra["nodes"], cur)
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


def _explain(claim: Claim, res: Result, value: float, ok: bool) -> str:
    f = res.fabric(claim.fabric)
    base = res.fabric(res.baseline)
    m, b = f.metrics, base.metrics
    if claim.metric == "run_days_ratio":
        need = claim.claimed if isinstance(claim.claimed, float | int) else claim.claimed[0]
        exposed_needed = need * m["step_time_s"] - b["compute_time_s"] * (
            b["step_time_s"] - b["exposed_comm_s"]) / b["compute_time_s"]
        text = (
            f"step on {base.id}: compute {b['compute_time_s']:.1f} s, network "
            f"{b['comm_time_s']:.1f} s of which {b['exposed_comm_s']:.1f} s exposed; on {f.id}: "
            f"network {m['comm_time_s']:.1f} s, {m['exposed_comm_s']:.1f} s exposed"
        )
        if not ok:
            text += (f". The claimed ratio needs ≈ {exposed_needed:.1f} s of exposed network time "
                     f"per step on {base.id}, which its measured all-reduce bandwidth "
                     f"({b['allreduce_busbw_gbs']:.1f} GB/s) does not produce")
        return text
    if claim.metric == "cpu_share":
        text = (f"{f.id} moves {m['nic_gbps']:.0f} Gb/s per node; transport CPU cost from "
                f"cores per 100 Gb/s (Cai et al. 2021 for TCP, kernel bypass for RDMA) over "
                f"the host's cores, during the share of the step the NICs carry traffic")
        if not ok:
            text += ("; the article's CPU figures are far above what published host-stack "
                     "measurements give for this traffic")
        return text
    if claim.metric == "latency_us":
        text = (f"model: NCCL per-step latency (≈ 8 µs software) + fabric latency + switch hops "
                f"= {m['latency_us']:.1f} µs")
        return text
    if claim.metric in ("tco_delta_cny", "energy_saving_per_year_cny", "tco_total_cny"):
        diffs = {k: f.breakdown[k] - base.breakdown[k] for k in f.breakdown}
        top = sorted(diffs.items(), key=lambda kv: -abs(kv[1]))[:3]
        parts = ", ".join(f"{k} {to_cny(v, res.currency) / 1e6:+.2f} M CNY" for k, v in top)
        return (f"{f.id} minus {base.id} over {res.horizon_years} years ({res.scope} scope): "
                f"{parts}")
    if claim.metric in ("interruptions_per_run", "lost_hours_per_run",
                        "interruption_cost_per_run_cny"):
        return (f"job MTBF {m['mtbf_hours']:.0f} h from Llama 3 failure rates "
                f"(network share {m['network_interruptions_per_year'] / max(m['interruptions_per_year'], 1e-12):.0%}); "
                f"run {m['run_days']:.1f} d; checkpoint every {m['checkpoint_interval_h']:.2f} h "
                f"(Daly 2006), so each interruption costs ≈ half an interval plus the restart")
    if claim.metric in ("network_capex_per_node_cny", "network_capex_ratio"):
        return (f"{f.id}: NICs, {m['switches']:.0f} switch(es), cables, optics and installation "
                f"from the public price book")
    return ""


def check_preset(preset_id: str) -> list[ClaimCheck]:
    """Every claim of one preset beside the model's figure."""
    preset = get_preset(preset_id)
    res = evaluate(preset.scenario)
    res.extra["nodes"] = preset.scenario.cluster.nodes
    out = []
    for claim in preset.claims:
        value = _modelled(claim, res)
        ok = _within(value, claim.claimed)
        out.append(ClaimCheck(
            preset=preset_id, metric=claim.metric, fabric=claim.fabric, text=claim.text,
            claimed=claim.claimed, modelled=value, reproduced=ok,
            explanation=_explain(claim, res, value, ok),
        ))
    return out


def check_all() -> list[ClaimCheck]:
    """Claims of every preset."""
    return [c for pid in list_presets() for c in check_preset(pid)]
