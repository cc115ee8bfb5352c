"""The source article's claims beside the model's figures, with a plain verdict.

A claim is *reproduced* when the model's figure lies within ±25 % of the claimed value (or of
the claimed range). Otherwise the table says so and explains, with the model's own numbers,
what separates the two. Money claims are in CNY; model money is converted from the price
book's currency with the rates of defaults.yaml (display only).
"""

from __future__ import annotations

from dataclasses import dataclass

from costmodel.api import evaluate
from costmodel.catalog.currency import convert
from costmodel.catalog.formatting import format_sig
from costmodel.catalog.loader import load_catalog
from costmodel.pipeline.results import Result
from costmodel.scenario.presets import Claim, get_preset, list_presets

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
    explanation: str  # English
    why: list[dict]  # the explanation as parts {"code", "values"} a UI translates (see WHY_EN)
    # the same claim under the preset's reference design (Preset.reference), None without one
    reference: float | None = None
    reference_reproduced: bool | None = None
    reference_text: str = ""
    reference_text_zh: str = ""


def to_cny(amount: float, currency: str) -> float:
    """Convert ``amount`` from ``currency`` to CNY with the catalog's reference rates."""
    return convert(amount, currency, "CNY")


def _compute_fabric_capex(f) -> float:
    """Network capex of the compute fabric alone, as the article counts it: without the front-end
    Ethernet every design needs (the same for every fabric, :mod:`costmodel.money.bom`) [currency]."""
    return f.network_capex_purchase - f.bom_priced.get("frontend", {}).get("extended", 0.0)


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
        return to_cny(_compute_fabric_capex(f) / res.nodes, cur)
    if metric == "network_capex_ratio":
        return _compute_fabric_capex(f) / _compute_fabric_capex(res.fabric(claim.other))
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


#: The explanation of a claim is a list of parts ``{"code", "values"}`` (numbers, fabric ids, cost
#: categories, amounts in CNY under keys ending ``_cny``) that a UI translates, as it does the
#: recommendation's reasons; these are the English texts (the CLI, docs/validation.md). A part's
#: text starts with its own joining punctuation.
WHY_EN = {
    "run_days": ("step on {base}: compute {b_compute_s:.1f} s, network {b_comm_s:.1f} s ({b_busbw_gbs:.1f} GB/s "
                 "busbw) of which {b_exposed_s:.1f} s is not hidden behind the backward pass; on {fabric}: "
                 "network {f_comm_s:.1f} s, {f_exposed_s:.1f} s exposed"),
    "run_days_miss": (". The claimed ratio would need ≈ {exposed_needed_s:.1f} s of exposed network time per step on "
                      "{base}, more than its whole modelled all-reduce"),
    "cpu": ("{fabric} carries {nic_gbps:.0f} Gb/s per node at {busbw_gbs:.1f} GB/s busbw; the transport uses "
            "≈ {cores:.2f} host cores on average (cores per 100 Gb/s: Cai et al. 2021 for kernel TCP, kernel bypass "
            "for RDMA)"),
    "cpu_miss": "; the article's figure is far above what published host-stack measurements give",
    "latency": ("NCCL per-step software latency (≈ {base_us:g} µs, tuning.cc) + fabric latency (perftest) + "
                "{hops:.0f} switch hop(s) = {latency_us:.1f} µs"),
    "money": "{fabric} minus {base} over {years:g} years ({scope} scope): {parts}",
    "energy_hours": "; busy {b_busy_h:,.0f} h/year on {base} vs {f_busy_h:,.0f} h on {fabric}",
    "interruptions": ("network faults (NICs per port, cables and optics per link, switches per switch) cause "
                      "{per_run:.3f} "
                      "interruptions per {run_days:.1f}-day run on {fabric}, {network_share:.1%} of all; with a "
                      "checkpoint every {ckpt_h:.2f} h (Daly 2006) each costs half an interval plus the restart"),
    "interruptions_miss": ("; the article's hours lost per interruption imply restarts from days-old checkpoints, "
                           "and its count implies network fault rates far above published fleet data"),
    "capex": ("{fabric} per node: NICs {nics}, switches {switches_money} ({switches:.0f} in all), cables and optics "
              "{links}, installation {install} ({price_book} price book)"),
    "reading_only": (". This holds only under the article's reading of its bandwidth as {nics:.0f} NIC per server: "
                     "the reference design, {ref_nics:.0f} NICs per server (one per GPU), gives {ref_value}, and "
                     "{fabric} is then the cost-optimal fabric"),
    "reading_ref": (". Under the reference design, {ref_nics:.0f} NICs per server (one per GPU), the model gives "
                    "{ref_value}"),
}


def explanation_text(parts: list[dict]) -> str:
    """The English text of an explanation (a list of ``{"code", "values"}`` parts)."""
    out = []
    for part in parts:
        values = dict(part["values"])
        for key, amount in part["values"].items():
            if key.endswith("_cny"):
                values[key[: -len("_cny")]] = f"{amount:,.0f} CNY"
        if "diffs" in values:
            values["parts"] = ", ".join(f"{k} {v / 1e6:+.2f} M CNY" for k, v in values["diffs"].items())
        out.append(WHY_EN[part["code"]].format(**values))
    return "".join(out)


def _part(code: str, **values) -> dict:
    """One explanation part; numbers as plain floats (JSON-ready)."""
    return {"code": code, "values": {k: (float(v) if isinstance(v, int | float) and not isinstance(v, bool) else v)
                                     for k, v in values.items()}}


def _explain(claim: Claim, res: Result, value: float, ok: bool) -> list[dict]:
    """Why the model's figure is what it is, in the model's own numbers (parts, see :data:`WHY_EN`)."""
    f = res.fabric(claim.fabric)
    base = res.fabric(res.baseline)
    m, b = f.metrics, base.metrics
    cur = res.currency
    metric = claim.metric
    if metric == "run_days_ratio":
        need = claim.claimed if isinstance(claim.claimed, float | int) else claim.claimed[0]
        exposed_needed = need * m["step_time_s"] - (b["step_time_s"] - b["exposed_comm_s"])
        parts = [_part("run_days", base=base.id, fabric=f.id, b_compute_s=b["compute_time_s"],
                       b_comm_s=b["comm_time_s"], b_busbw_gbs=b["allreduce_busbw_gbs"],
                       b_exposed_s=b["exposed_comm_s"], f_comm_s=m["comm_time_s"], f_exposed_s=m["exposed_comm_s"])]
        if not ok:
            parts.append(_part("run_days_miss", base=base.id, exposed_needed_s=exposed_needed))
        return parts
    if metric == "cpu_share":
        parts = [_part("cpu", fabric=f.id, nic_gbps=m["nic_gbps"], busbw_gbs=m["allreduce_busbw_gbs"],
                       cores=m["cpu_cores_used"])]
        return parts if ok else [*parts, _part("cpu_miss")]
    if metric == "latency_us":
        base_us = load_catalog().constant("nccl_base_latency_us")
        return [_part("latency", base_us=base_us, hops=2 * m["tiers"] - 1, latency_us=m["latency_us"])]
    if metric in ("tco_delta_cny", "tco_total_cny", "energy_saving_per_year_cny"):
        diffs = {k: f.breakdown[k] - base.breakdown[k] for k in f.breakdown}
        top = sorted(diffs.items(), key=lambda kv: -abs(kv[1]))[:3]
        parts = [_part("money", fabric=f.id, base=base.id, years=int(res.horizon_years), scope=res.scope,
                       diffs={k: float(to_cny(v, cur)) for k, v in top})]
        if metric == "energy_saving_per_year_cny":
            parts.append(_part("energy_hours", base=base.id, fabric=f.id, b_busy_h=b["busy_hours_per_year"],
                               f_busy_h=m["busy_hours_per_year"]))
        return parts
    if metric.startswith("network_interruption") or metric == "network_lost_hours_per_run":
        per_run = m["network_interruptions_per_year"] / max(m["runs_per_year"], 1e-12)
        parts = [_part("interruptions", fabric=f.id, per_run=per_run, run_days=m["run_days"],
                       network_share=m["network_interruptions_per_year"] / max(m["interruptions_per_year"], 1e-12),
                       ckpt_h=m["checkpoint_interval_h"])]
        return parts if ok else [*parts, _part("interruptions_miss")]
    if metric in ("network_capex_per_node_cny", "network_capex_ratio"):
        n = res.nodes
        return [_part("capex", fabric=f.id, nics_cny=to_cny(m["capex_nics"] / n, cur),
                      switches_money_cny=to_cny(m["capex_switches"] / n, cur), switches=m["switches"],
                      links_cny=to_cny(m["capex_links"] / n, cur), install_cny=to_cny(m["capex_install"] / n, cur),
                      price_book=res.price_book)]
    return []


def _reference_result(preset) -> Result | None:
    """The preset's scenario under its reference design (its NICs per server), None without one."""
    if preset.reference is None:
        return None
    cluster = preset.scenario.cluster.model_copy(update={"nics_per_node": preset.reference.nics_per_node})
    return evaluate(preset.scenario.model_copy(update={"cluster": cluster}))


def _reading(claim: Claim, preset, ref: Result, ok: bool) -> tuple[float, bool, dict]:
    """The claim's figure under the reference design, whether it is reproduced there, and the part
    that says so: the article's figure holds *only* under its own reading when it is reproduced
    there and not under the reference design."""
    value = _modelled(claim, ref)
    ref_ok = _within(value, claim.claimed)
    shown = {"ref_value_cny": value} if claim.metric.endswith("_cny") else {"ref_value": format_sig(value, 3)}
    code = "reading_only" if ok and not ref_ok else "reading_ref"
    return value, ref_ok, _part(code, nics=preset.scenario.cluster.nics_per_node,
                                ref_nics=preset.reference.nics_per_node,
                                fabric=ref.recommendation.cost_optimal, **shown)


def check_preset(preset_id: str) -> list[ClaimCheck]:
    """Every claim of one preset beside the model's figure, and beside its figure under the preset's
    reference design where the preset names one."""
    preset = get_preset(preset_id)
    res = evaluate(preset.scenario)
    ref = _reference_result(preset)
    out = []
    for claim in preset.claims:
        value = _modelled(claim, res)
        ok = _within(value, claim.claimed)
        why = _explain(claim, res, value, ok)
        extra = {}
        if ref is not None:
            ref_value, ref_ok, part = _reading(claim, preset, ref, ok)
            why = [*why, part]
            extra = dict(reference=ref_value, reference_reproduced=ref_ok, reference_text=preset.reference.text,
                         reference_text_zh=preset.reference.text_zh)
        out.append(ClaimCheck(
            preset=preset_id, metric=claim.metric, fabric=claim.fabric, text=claim.text, text_zh=claim.text_zh,
            claimed=claim.claimed, modelled=value, reproduced=ok, explanation=explanation_text(why), why=why, **extra,
        ))
    return out


def check_all() -> list[ClaimCheck]:
    """Claims of every preset."""
    return [c for pid in list_presets() for c in check_preset(pid)]
