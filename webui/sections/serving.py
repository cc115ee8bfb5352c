"""The Serving page's rows and sentences, from :func:`costmodel.serving.serving_answers` (no Streamlit):
the table per fabric, the equal-SLA comparison against the baseline, why a fabric misses the targets,
and the recommendation. Texts in ``locales/{en,zh}/serving.yaml``; numbers in seconds, milliseconds,
tokens/s and the session's money formatter."""

from __future__ import annotations

import math
from collections.abc import Mapping

from costmodel.catalog.formatting import format_number, format_ratio, format_share
from costmodel.scenario.schema import Scenario
from costmodel.serving.answers import FabricServing, ServingAnswers
from webui.i18n.money import Money
from webui.i18n.translator import Translator

MS_PER_S = 1000.0  # a unit conversion
PER_MTOK_DIGITS = 2  # a million tokens costs cents to a few units of money


def _count(v: float) -> str:
    return format_number(v, 0) if math.isfinite(v) else "—"


def _ms(v: float) -> str:
    return format_number(v * MS_PER_S, 1 if v * MS_PER_S < 10 else 0) if math.isfinite(v) else "—"


def _s(v: float) -> str:
    return format_number(v, 2) if math.isfinite(v) else "—"


Table = tuple[list[str], list[list[str]]]


def table(t: Translator, a: ServingAnswers, short: Mapping[str, str], money: Money) -> Table:
    """Header and one row per fabric: servers, GPUs, TTFT [s], TPOT [ms], output tokens/s per GPU, money
    per million output and input tokens, the fabric's share, whether the targets are met."""
    header = [t("serving.col_fabric"), t("serving.col_servers"), t("serving.col_gpus"), t("serving.col_ttft"),
              t("serving.col_tpot"), t("serving.col_tps"), t("serving.col_out", cur=money.currency),
              t("serving.col_in", cur=money.currency), t("serving.col_share"), t("serving.col_sla")]
    rows = [[short[r.fabric], _count(r.servers), _count(r.gpus), _s(r.ttft_s), _ms(r.tpot_s),
             _count(r.output_tokens_per_s_per_gpu), money(r.cost_per_mtok_output, PER_MTOK_DIGITS),
             money(r.cost_per_mtok_input, PER_MTOK_DIGITS),
             format_share(r.fabric_share, 1) if r.sla_met else "—", t("serving.yes" if r.sla_met else "serving.no")]
            for r in a.fabrics]
    return header, rows


def equal_sla_table(t: Translator, a: ServingAnswers, short: Mapping[str, str], money: Money) -> Table:
    """Header and one row per fabric against the baseline at the same demand and targets: servers more,
    money per million tokens and its ratio, the cost a year more [currency/yr]."""
    base = a.row(a.baseline)
    header = [t("serving.col_fabric"), t("serving.col_servers_delta"), t("serving.col_mtok", cur=money.currency),
              t("serving.col_ratio"), t("serving.col_year_delta")]
    rows = []
    for r in a.fabrics:
        both = r.sla_met and base.sla_met
        delta = (r.cost_per_hour - base.cost_per_hour) * a.hours_per_year if both else float("nan")
        rows.append([short[r.fabric], f"{r.servers_vs_baseline:+,.0f}" if both else "—",
                     money(r.cost_per_mtok, PER_MTOK_DIGITS),
                     format_ratio(r.cost_ratio_vs_baseline, 2) if both else "—",
                     money.short(delta) if not both or delta <= 0 else "+" + money.short(delta)])
    return header, rows


def misses(t: Translator, a: ServingAnswers, scenario: Scenario, names: Mapping[str, str]) -> list[str]:
    """One plain sentence per fabric that cannot meet the targets, saying why."""
    s, out = scenario.serving, []
    for r in a.fabrics:
        if r.sla_met:
            continue
        if r.reason == "tpot_floor":
            key = "serving.miss_tpot" if r.instance_servers > 1 else "serving.miss_tpot_local"
            out.append(t(key, fabric=names[r.fabric], target=_ms(s.tpot_s), floor=_ms(r.tpot_floor_s),
                         servers=_count(r.instance_servers)))
        else:
            out.append(t("serving.miss_ttft", fabric=names[r.fabric], target=_s(s.ttft_s),
                         prompt=_count(s.prompt_tokens), ttft=_s(r.ttft_s)))
    return out


def same_servers(t: Translator, a: ServingAnswers) -> str | None:
    """A note when every fabric meets the targets with the same servers and TPOT (the model stays inside
    one instance's servers, so the fabric only prices the server-hour); else None."""
    rows = a.fabrics
    if len(rows) < 2 or not all(r.sla_met for r in rows):
        return None
    if len({r.servers for r in rows}) == 1 and len({round(r.tpot_s, 9) for r in rows}) == 1:
        return t("serving.same_servers", servers=_count(rows[0].instance_servers))
    return None


def _why(t: Translator, best: FabricServing, met: list[FabricServing], names: Mapping[str, str]) -> str:
    fewest = min(met, key=lambda r: r.servers)
    most = max(met, key=lambda r: r.servers)
    if fewest.servers == most.servers:
        return t("serving.why_price")
    if best.servers > fewest.servers:
        return t("serving.why_servers", servers=_count(best.servers), other=_count(fewest.servers),
                 other_fabric=names[fewest.fabric])
    return t("serving.why_fewer", servers=_count(best.servers), other=_count(most.servers),
             other_fabric=names[most.fabric])


def recommendation(t: Translator, a: ServingAnswers, names: Mapping[str, str], money: Money) -> str:
    """One sentence: the cheapest fabric per million tokens that meets the targets, and why."""
    best = a.cheapest()
    if best is None:
        return t("serving.recommend_none")
    met = [r for r in a.fabrics if r.sla_met]
    return t("serving.recommend", fabric=names[best.fabric], cost=money(best.cost_per_mtok, PER_MTOK_DIGITS),
             servers=_count(best.servers), why=_why(t, best, met, names))


def instance_line(t: Translator, a: ServingAnswers, scenario: Scenario) -> str:
    """One instance's servers and GPUs and the layout (the cheapest fabric's, else the first's), and the
    fleet's cost a year."""
    r = a.cheapest() or a.fabrics[0]
    gpus = r.gpus / r.servers * r.instance_servers if math.isfinite(r.servers) and r.servers else float("nan")
    mode = t("serving.mode_disagg" if scenario.serving.disaggregated else "serving.mode_colocated")
    return t("serving.instance", servers=_count(r.instance_servers), gpus=_count(gpus), mode=mode)


def year_cost(t: Translator, a: ServingAnswers, money: Money) -> str | None:
    """The fleet's cost a year with the cheapest fabric that meets the targets (None: none does)."""
    best = a.cheapest()
    if best is None:
        return None
    return t("serving.year_cost", cost=money.short(best.cost_per_hour * a.hours_per_year),
             hours=format_number(a.hours_per_year, 0))


__all__ = ["equal_sla_table", "instance_line", "misses", "recommendation", "same_servers", "table", "year_cost"]
