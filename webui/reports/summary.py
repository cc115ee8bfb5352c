"""The PDF's executive summary (one page: the verdict, its reasons, the headline chart, every fabric's
cost) and its key figures (the same work, every fabric's measures, what one run costs). No Streamlit.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from costmodel.catalog.formatting import format_number, format_share
from costmodel.pipeline.facility_checks import ClusterFacts
from webui.i18n import labels
from webui.i18n.durations import duration_text
from webui.i18n.money import Money
from webui.i18n.translator import Translator
from webui.sections import cluster_facts, compare_notes, equal_work

HEADLINE_H = 330  # px of the headline chart's SVG on the summary page (the others: html.CHART_H)


def summary_page(t: Translator, res, names: dict, conv: Money, table: Callable, headline: str,
                 facts: ClusterFacts | None = None) -> str:
    """The executive summary on one page: the cost-optimal fabric and why, for a rack-scale cluster
    (``facts``) the scale-out share of a step in one sentence, ``headline`` (the chart's image), and each
    fabric's TCO, difference, NPV and payback."""
    e = html.escape
    rec = res.recommendation
    base, best = res.fabric(res.baseline), res.fabric(rec.cost_optimal)
    h = res.horizon_years
    parts = [f"<div class='summary'><h2>{e(t('pdf.summary'))}</h2><div class='box'>"]
    parts.append(f"<p>{e(t('pdf.summary_text', best=names[best.id], delta=conv(best.delta_vs_baseline, signed=True), base=names[base.id], years=h, days=format_number(best.metrics['run_days'], 1), payback=duration_text(t, best.payback_years)))}</p>")  # noqa: E501
    parts.append(f"<p>{e(t('pdf.rule_vs_cost', rule=names.get(rec.rule, '—') if rec.rule else '—', best=names[best.id]))}</p>")  # noqa: E501
    parts.append(f"<p>{e(compare_notes.picks_sentence(t, conv, res, names))}</p>")
    scaleout = cluster_facts.scaleout_sentence(t, res, facts, names) if facts is not None else ""
    if scaleout:
        parts.append(f"<p>{e(scaleout)}</p>")
    parts.append("<ul>" + "".join(f"<li>{e(labels.reason(t, rc, conv))}</li>"
                                  for rc in rec.reason_codes) + "</ul></div>")
    parts.append(f"<h3>{e(t('prop.headline', years=h))}</h3>{headline}")
    rows = [[names[f.id], conv(f.tco_total), conv(f.delta_vs_baseline, signed=True), conv(f.npv),
             duration_text(t, f.payback_years, short=True)] for f in res.fabrics]
    parts.append(table([t("spec.fabric"), t("kpi.tco", years=h), t("chart.delta_vs_baseline"), t("kpi.npv"),
                        t("kpi.payback")], rows))
    return "".join(parts) + "</div>"


def key_figures(t: Translator, res, names: dict, conv: Money, table: Callable) -> str:
    """The same work with each fabric sized to deliver it, every fabric's measures on the cluster entered,
    why more nodes slow a communication-bound run, and what one run costs."""
    e = html.escape
    h = res.horizon_years
    parts = [f"<h2>{e(t('prop.key_figures'))}</h2>"]
    if res.equal_work is not None:
        work = equal_work.rows(t, conv, res, names)
        parts.append(f"<h3>{e(t('work.title'))}</h3><p class='muted'>{e(equal_work.plan_text(t, res))}</p>")
        parts.append(table(list(work[0]), [list(r.values()) for r in work]))
        parts.append(f"<p class='muted'>{e(t('work.note', nodes=format_number(res.nodes, 0)))}</p>")
    rows = [[names[f.id], conv(f.tco_total), conv(f.delta_vs_baseline, signed=True), conv(f.npv),
             duration_text(t, f.payback_years, short=True),
             format_number(f.metrics["run_days"], 1), format_share(f.metrics["gpu_utilization"]),
             format_number(f.metrics["interruptions_per_year"], 1), format_share(f.metrics["cpu_overhead_share"], 2)]
            for f in res.fabrics]
    parts.append(f"<h3>{e(t('rpt.kpi_title'))}</h3>")
    parts.append(table([t("spec.fabric"), t("kpi.tco", years=h), t("chart.delta_vs_baseline"),
                        t("kpi.npv"), t("kpi.payback"), t("kpi.run_days"), t("kpi.gpu_util"),
                        t("kpi.interruptions"), t("kpi.cpu")], rows))
    parts.extend(f"<p>{e(line)}</p>" for line in compare_notes.slowdown_lines(t, res, names))
    parts.append(_unit_costs(t, conv, res, names, table))
    return "".join(parts)


def _unit_costs(t: Translator, conv: Money, res, names: dict, table: Callable) -> str:
    """What one run costs on the cluster entered (the cards' figures): runs per year as scheduled and at
    most, the cost of a cluster-hour of training, of a run, of a million tokens, of a useful GPU-hour."""
    head = [t("spec.fabric"), t("kpi.runs_year"), t("kpi.max_runs"), t("kpi.per_cluster_hour"), t("kpi.per_run"),
            t("kpi.per_mtok"), t("kpi.per_gpu_hour")]
    rows = [[names[f.id], format_number(f.metrics["runs_per_year"], 1),
             format_number(f.always_busy["runs_per_year"], 1) if f.always_busy else "—",
             conv.short(f.metrics["cost_per_cluster_hour"]), conv.short(f.metrics["cost_per_run"]),
             conv(f.metrics["cost_per_mtok"], digits=2), conv(f.metrics["cost_per_useful_gpu_hour"], digits=2)]
            for f in res.fabrics]
    return (f"<h3>{html.escape(t('rpt.unit_title'))}</h3>{table(head, rows)}"
            f"<p class='muted'>{html.escape(t('rpt.unit_note'))}</p>")
