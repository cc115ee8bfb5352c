"""The deck's first slides: title, executive summary, recommendation with its reasons, TCO by category,
every fabric at a glance, the same work, cumulative cost and crossover. The same figures and sentences
as the PDF's summary page (:mod:`webui.reports.html`); charts are native, their series the model's
numbers in the display currency over the unit named on the axis."""

from __future__ import annotations

import datetime as dt

from pptx.enum.text import MSO_ANCHOR
from pptx.util import Inches

from costmodel.analysis.timeline import cumulative
from costmodel.catalog.formatting import format_number, format_share
from costmodel.pipeline.tco import CATEGORIES
from costmodel.scenario import titles as model_titles
from webui.i18n import labels
from webui.i18n.durations import duration_text
from webui.reports.deck_base import (
    BODY_H,
    BODY_TOP,
    BODY_W,
    GREY,
    MARGIN,
    SLIDE_W,
    WHITE,
    Deck,
    bar_chart,
    line_chart,
    money_scale,
    new_slide,
    shown,
    table,
    text,
)
from webui.sections import compare_notes, equal_work


def title_slide(deck: Deck, number: int) -> None:
    """The cover: a band in the primary colour with the logo, the title, what the cluster is, the date,
    price book and currency, the company and its contact."""
    t, b = deck.t, deck.brand
    slide = deck.prs.slides.add_slide(deck.prs.slide_layouts[6])
    band = slide.shapes.add_shape(1, 0, Inches(1.6), SLIDE_W, Inches(3.2))
    band.fill.solid()
    band.fill.fore_color.rgb = deck.rgb("primary")
    band.line.fill.background()
    slide.shapes.add_picture(str(b.logo_png_path), MARGIN, Inches(0.45), height=Inches(0.85))
    text(slide, MARGIN, Inches(1.8), BODY_W, Inches(1.3), deck.title, size=36, color=WHITE, bold=True,
         anchor=MSO_ANCHOR.MIDDLE)
    text(slide, MARGIN, Inches(3.1), BODY_W, Inches(0.6), t("deck.subtitle"), size=22, color=WHITE)
    text(slide, MARGIN, Inches(3.75), BODY_W, Inches(0.9),
         t("rpt.setup", setup=model_titles.setup_line(deck.scenario, t.lang)), size=16, color=WHITE)
    text(slide, MARGIN, Inches(5.1), BODY_W, Inches(0.5),
         t("pdf.cover", date=dt.date.today().isoformat(), book=deck.book_label, currency=deck.conv.currency),
         size=14, color=GREY)
    text(slide, MARGIN, Inches(5.7), BODY_W, Inches(1.0),
         [b.company(t.lang), t("deck.contact", email=b.contact.email, phone=b.contact.phone, web=b.contact.web)],
         size=14, color=deck.rgb("primary"))
    text(slide, MARGIN, Inches(6.95), BODY_W, Inches(0.4), b.legal(t.lang), size=9, color=GREY)


def summary_slide(deck: Deck, number: int) -> None:
    """The executive summary in sentences (the PDF's), and the headline: TCO of each fabric."""
    t, res, conv, names = deck.t, deck.res, deck.conv, deck.names
    rec = res.recommendation
    base, best = res.fabric(res.baseline), res.fabric(rec.cost_optimal)
    slide = new_slide(deck, t("pdf.summary"), number)
    lines = [t("pdf.summary_text", best=names[best.id], delta=conv.short(best.delta_vs_baseline),
               base=names[base.id], years=res.horizon_years, days=format_number(best.metrics["run_days"], 1),
               payback=duration_text(t, best.payback_years)),
             t("pdf.rule_vs_cost", rule=names.get(rec.rule, "—") if rec.rule else "—", best=names[best.id]),
             compare_notes.picks_sentence(t, conv, res, names)]
    half = int(BODY_W * 0.5)
    text(slide, MARGIN, BODY_TOP, half - Inches(0.2), BODY_H, lines, size=17, bullets=True)
    div, unit = money_scale(deck, [f.tco_total for f in res.fabrics])
    chart = bar_chart(deck, slide, [names[f.id] for f in res.fabrics],
              [(t("kpi.tco", years=res.horizon_years), [shown(deck, f.tco_total, div) for f in res.fabrics])],
              MARGIN + half, BODY_TOP, BODY_W - half, BODY_H,
              axis_title=t("deck.axis_money", what=t("kpi.tco", years=res.horizon_years), unit=unit),
              colors=[deck.rgb("primary")])
    point = chart.series[0].points[[f.id for f in res.fabrics].index(best.id)]  # the cost-optimal fabric
    point.format.fill.solid()
    point.format.fill.fore_color.rgb = deck.rgb("accent")


def recommendation_slide(deck: Deck, number: int) -> None:
    """The recommended fabric and every reason the model gives for it."""
    t, res = deck.t, deck.res
    rec = res.recommendation
    slide = new_slide(deck, t("deck.rec_title"), number)
    text(slide, MARGIN, BODY_TOP, BODY_W, Inches(0.7), t("deck.rec_pick", fabric=deck.names[rec.cost_optimal]),
         size=22, color=deck.rgb("accent"), bold=True)
    reasons = [labels.reason(t, rc, deck.conv) for rc in rec.reason_codes]
    size = 17 if len(reasons) <= 4 else 15 if len(reasons) <= 7 else 13
    text(slide, MARGIN, BODY_TOP + Inches(0.8), BODY_W, BODY_H - Inches(0.8), reasons, size=size, bullets=True)


def categories_slide(deck: Deck, number: int) -> None:
    """TCO by cost category, one stacked column per fabric."""
    t, res = deck.t, deck.res
    slide = new_slide(deck, t("deck.tco_title", years=res.horizon_years), number)
    div, unit = money_scale(deck, [f.tco_total for f in res.fabrics])
    series = [(t(f"cat.{c}"), [shown(deck, f.breakdown[c], div) for f in res.fabrics]) for c in CATEGORIES]
    bar_chart(deck, slide, [deck.names[f.id] for f in res.fabrics], series, MARGIN, BODY_TOP, BODY_W, BODY_H,
              stacked=True, axis_title=t("deck.axis_money", what=t("kpi.tco", years=res.horizon_years), unit=unit))


def kpi_slide(deck: Deck, number: int) -> None:
    """Every fabric on the cluster entered: TCO, ΔTCO, NPV, payback, days per run, GPU utilisation and the
    scale-out share of a step."""
    t, res, conv = deck.t, deck.res, deck.conv
    slide = new_slide(deck, t("rpt.kpi_title"), number)
    rows = [[deck.names[f.id], conv.short(f.tco_total), conv.short(f.delta_vs_baseline),
             conv.short(f.npv), duration_text(t, f.payback_years, short=True),
             format_number(f.metrics["run_days"], 1), format_share(f.metrics["gpu_utilization"]),
             format_share(f.metrics["scaleout_share"], 1)]
            for f in res.fabrics]
    header = [t("spec.fabric"), t("kpi.tco", years=res.horizon_years), t("chart.delta_vs_baseline"), t("kpi.npv"),
              t("kpi.payback"), t("kpi.run_days"), t("kpi.gpu_util"), t("cluster26.col_scaleout")]
    height = table(deck, slide, header, rows, MARGIN, BODY_TOP + Inches(0.2), BODY_W, size=12, first_col_share=0.22)
    notes = compare_notes.slowdown_lines(t, res, deck.names)[:2]
    if notes:
        text(slide, MARGIN, BODY_TOP + height + Inches(0.5), BODY_W, Inches(1.8),
             notes, size=12, color=GREY)


def equal_work_slide(deck: Deck, number: int) -> None:
    """The same work: each fabric's cluster sized to deliver the plan, its cost (chart) and its rows."""
    t, res = deck.t, deck.res
    slide = new_slide(deck, t("work.title"), number)
    ew = res.equal_work
    if ew is None:
        text(slide, MARGIN, BODY_TOP, BODY_W, Inches(1.0), t("deck.no_work"), size=16)
        return
    text(slide, MARGIN, BODY_TOP, BODY_W, Inches(0.8), equal_work.plan_text(t, res), size=12, color=GREY)
    ok = [j for j, fid in enumerate(ew.fabric_ids) if ew.feasible[j]]
    top = BODY_TOP + Inches(0.9)
    rows = equal_work.rows(t, deck.conv, res, deck.names)
    if not ok:  # no fabric delivers the plan within the node limit: the rows say so, no empty chart
        table(deck, slide, list(rows[0]), [list(r.values()) for r in rows], MARGIN, top, BODY_W, size=11,
              first_col_share=0.26)
        return
    div, unit = money_scale(deck, [ew.cost[j] for j in ok])
    half = int(BODY_W * 0.45)
    bar_chart(deck, slide, [deck.names[ew.fabric_ids[j]] for j in ok],
              [(t("work.cost"), [shown(deck, ew.cost[j], div) for j in ok])], MARGIN, top, half, BODY_H - Inches(0.9),
              axis_title=t("deck.axis_money", what=t("work.cost"), unit=unit), colors=[deck.rgb("secondary")])
    table(deck, slide, list(rows[0]), [list(r.values()) for r in rows], MARGIN + half + Inches(0.2), top,
          BODY_W - half - Inches(0.2), size=11, first_col_share=0.26)


def cumulative_slide(deck: Deck, number: int) -> None:
    """Cumulative cost month by month, one line per fabric, and where each crosses the baseline."""
    t, res = deck.t, deck.res
    cum = cumulative(res)
    slide = new_slide(deck, t("deck.cum_title"), number)
    div, unit = money_scale(deck, [c[-1] for c in cum.curves.values()])
    series = [(deck.names[fid], cum.months, [shown(deck, v, div) for v in curve]) for fid, curve in cum.curves.items()]
    head, rows = compare_notes.crossing_table(t, deck.conv, cum, deck.names)
    chart_w = int(BODY_W * (0.62 if rows else 1.0))
    line_chart(deck, slide, series, MARGIN, BODY_TOP, chart_w, BODY_H,
               axis_title=t("deck.axis_money", what=t("deck.cum_axis"), unit=unit), x_title=t("deck.month"))
    x = MARGIN + chart_w + Inches(0.2)
    if rows:
        text(slide, x, BODY_TOP, BODY_W - chart_w - Inches(0.2), Inches(0.5), t("crossings.title"), size=13,
             bold=True)
        shown_rows = rows[:8]
        table(deck, slide, head, shown_rows, x, BODY_TOP + Inches(0.6), BODY_W - chart_w - Inches(0.2), size=10,
              first_col_share=0.3)
