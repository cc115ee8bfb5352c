"""The deck's later slides: risk (Monte Carlo P10/P50/P90, the tornado of ΔTCO), the bill of materials,
the assumptions (the cluster's scale-up domain, cooling, PUE and racks above the prices) with their
sources and the closing slide. The same computations as the PDF report
(:mod:`webui.reports.html`): the report's Monte Carlo sample and the tornado of the cost-optimal fabric."""

from __future__ import annotations

import math

from pptx.util import Inches

import costmodel
from costmodel.analysis import uncertainty
from costmodel.catalog.formatting import format_number, format_share
from costmodel.money import bom
from costmodel.pipeline.facility_checks import cluster_facts
from costmodel.scenario import price_books
from webui.i18n import labels
from webui.reports.deck_base import (
    BODY_H,
    BODY_TOP,
    BODY_W,
    DARK,
    GREY,
    MARGIN,
    Deck,
    bar_chart,
    money_scale,
    new_slide,
    shown,
    table,
    table_height,
    text,
)
from webui.sections import cluster_facts as facts_text
from webui.sections.work_risk import REPORT_DRAWS, REPORT_SEED

TORNADO_TOP = 8  # inputs on the tornado slide, the largest swings
ASSUMPTION_ROWS = 14  # rows of the assumptions table at most (the GPU's prices first, then the fabrics')
SOURCES_PER_COLUMN = 12
CLUSTER_LINE_H = Inches(0.6)  # the cluster's line above the assumptions table (two lines at 11 pt)
NOTE_H = Inches(0.6)  # the sources note below it


def monte_carlo(deck: Deck):
    """The PDF's Monte Carlo: the report's draws and seed."""
    drawn = uncertainty.sample(deck.scenario, REPORT_DRAWS, REPORT_SEED)
    return costmodel.monte_carlo(deck.scenario, drawn=drawn)


def tornado_table(deck: Deck):
    """The PDF's tornado: ΔTCO of the cost-optimal fabric (the first other one when it is the baseline),
    its :data:`TORNADO_TOP` largest swings; ``None`` with one fabric."""
    res = deck.res
    if len(res.fabrics) < 2:
        return None
    best = res.recommendation.cost_optimal
    df = costmodel.tornado(deck.scenario, best if best != res.baseline else None)
    return df.sort_values("swing", ascending=False, kind="stable").head(TORNADO_TOP)


def risk_slide(deck: Deck, number: int) -> None:
    """P10 / P50 / P90 of each fabric's TCO (clustered columns) and the chance each is cheaper."""
    t, res = deck.t, deck.res
    summary = monte_carlo(deck).summary()
    slide = new_slide(deck, t("deck.risk_title"), number)
    div, unit = money_scale(deck, summary["p90"])
    cats = [deck.names[f] for f in summary["fabric"]]
    series = [(t(f"deck.{p}"), [shown(deck, v, div) for v in summary[p]]) for p in ("p10", "p50", "p90")]
    chart_w = int(BODY_W * 0.62)
    bar_chart(deck, slide, cats, series, MARGIN, BODY_TOP, chart_w, BODY_H,
              axis_title=t("deck.axis_money", what=t("kpi.tco", years=res.horizon_years), unit=unit))
    base = deck.names[res.baseline]
    lines = [t("deck.risk_cheaper", fabric=deck.names[r["fabric"]], base=base,
               share=format_share(r["prob_cheaper_than_baseline"], 0))
             for _, r in summary.iterrows() if r["fabric"] != res.baseline]
    text(slide, MARGIN + chart_w + Inches(0.2), BODY_TOP, BODY_W - chart_w - Inches(0.2), BODY_H,
         [t("deck.risk_note", draws=format_number(REPORT_DRAWS, 0)), *lines], size=13, bullets=True)


def tornado_slide(deck: Deck, number: int) -> None:
    """ΔTCO with each input at its low and at its high end (horizontal bars, largest swing on top)."""
    t = deck.t
    L = labels.chart_labels(t)
    slide = new_slide(deck, L["tornado_title"], number)
    df = tornado_table(deck)
    if df is None or df.empty:
        text(slide, MARGIN, BODY_TOP, BODY_W, Inches(1.0), t("deck.no_tornado"), size=16)
        return
    names = [L.get(p, p) + (f" · {deck.names.get(f, f)}" if isinstance(f, str) and f else "")
             for p, f in zip(df["parameter"], df["fabric"] if "fabric" in df else [None] * len(df), strict=True)]
    div, unit = money_scale(deck, [*df["delta_low"], *df["delta_high"]])
    series = [(L["input_low"], [shown(deck, v, div) for v in df["delta_low"]]),
              (L["input_high"], [shown(deck, v, div) for v in df["delta_high"]])]
    text(slide, MARGIN, BODY_TOP, BODY_W, Inches(0.5),
         t("deck.tornado_note", base=deck.conv.short(float(df["base_delta"].iloc[0]))), size=13, color=GREY)
    bar_chart(deck, slide, names, series, MARGIN, BODY_TOP + Inches(0.5), BODY_W, BODY_H - Inches(0.5),
              horizontal=True, axis_title=t("deck.axis_money", what=L["axis_delta"], unit=unit))


def bom_slide(deck: Deck, number: int) -> None:
    """The bill of materials: counts per item and fabric, and each fabric's network capex."""
    t, res = deck.t, deck.res
    slide = new_slide(deck, t("bom.title"), number)
    keys = [k for k, _, _ in bom.LINES if any(f.bom_priced[k]["count"] for f in res.fabrics)]
    rows = [[t(f"bom.item.{k}"), *(format_number(f.bom_priced[k]["count"], 0) for f in res.fabrics)] for k in keys]
    rows.append([t("bom.total"), *(deck.conv.short(f.network_capex_purchase) for f in res.fabrics)])
    header = [t("bom.col.item"), *(deck.names[f.id] for f in res.fabrics)]
    height = table(deck, slide, header, rows, MARGIN, BODY_TOP, BODY_W, size=11, first_col_share=0.28)
    text(slide, MARGIN, BODY_TOP + height + Inches(0.15), BODY_W, BODY_H - height - Inches(0.15), t("bom.note"),
         size=10, color=GREY)


def _source_text(deck: Deck, cat, qty) -> str:
    """Where a default comes from (the PDF's wording): the reference's title, an engineering estimate or
    a negotiated price book."""
    if qty.source == price_books.SOURCE:
        return deck.t("rpt.src_negotiated", book=deck.book_label)
    if qty.source == "engineering-estimate":
        return deck.t("rpt.src_assumption")
    return labels.reference_title(deck.t, cat.references[qty.source])


def assumptions(deck: Deck) -> tuple[list[list[str]], dict[str, tuple[int, set[str]]]]:
    """The prices behind the figures (the GPU's, then each fabric's; one column per fabric) with a
    number into the sources, and the sources ``text → (number, dates)``."""
    cat = costmodel.catalog.loader.load_catalog()
    book = price_books.for_scenario(deck.scenario, cat)
    sources: dict[str, tuple[int, set[str]]] = {}

    def cite(qty) -> str:
        n, dates = sources.setdefault(_source_text(deck, cat, qty), (len(sources) + 1, set()))
        dates.add(str(qty.as_of))
        return f"[{n}]"

    def price(v: float) -> str:
        return deck.conv(v, digits=0 if abs(deck.conv.convert(v)) >= 100 else 2)

    fabrics = list(deck.scenario.fabrics)
    gpu = book.gpus[deck.scenario.cluster.gpu]
    rows = [[deck.t.get(f"q.{q}", q), *[f"{price(getattr(gpu, q).typical)} {cite(getattr(gpu, q))}"] * len(fabrics)]
            for q in type(gpu).model_fields]  # the same GPU in every fabric's cluster
    for q in type(book.fabrics[fabrics[0]]).model_fields:
        cells = []
        for fid in fabrics:
            qty = getattr(book.fabrics[fid], q)
            cells.append(f"{price(qty.typical)} {cite(qty)}" if hasattr(qty, "typical") else "—")
        rows.append([deck.t.get(f"q.{q}", q), *cells])
    return rows, sources


def assumptions_slide(deck: Deck, number: int, rows: list[list[str]]) -> None:
    """The cluster in one line (scale-up domain, cooling, PUE, rack power limit, racks), then the prices
    behind the figures, the GPU's first."""
    t = deck.t
    slide = new_slide(deck, t("pdf.assumptions"), number)
    text(slide, MARGIN, BODY_TOP, BODY_W, CLUSTER_LINE_H, facts_text.deck_line(t, cluster_facts(deck.scenario)),
         size=11, color=DARK)
    header = [t("assumptions.col_quantity"), *(deck.names[f] for f in deck.scenario.fabrics)]
    top = BODY_TOP + CLUSTER_LINE_H
    n = ASSUMPTION_ROWS  # as many rows as leave the note room above the footer
    while n > 1 and top + table_height(header, rows[:n], BODY_W, 10, 0.3) + NOTE_H > BODY_TOP + BODY_H:
        n -= 1
    shown_rows = rows[:n]
    height = table(deck, slide, header, shown_rows, MARGIN, top, BODY_W, size=10, first_col_share=0.3)
    note = t("deck.assumptions_more", n=len(rows) - len(shown_rows)) if len(rows) > len(shown_rows) else ""
    text(slide, MARGIN, top + height + Inches(0.1), BODY_W, Inches(0.5),
         " ".join(x for x in (t("rpt.sources_note"), note) if x), size=10, color=GREY)


def sources_slide(deck: Deck, number: int, sources: dict[str, tuple[int, set[str]]]) -> None:
    """The numbered sources with their dates, in columns of :data:`SOURCES_PER_COLUMN`."""
    t = deck.t
    slide = new_slide(deck, t("rpt.sources_title"), number)
    lines = [t("rpt.source_dated", n=n, source=s, as_of=", ".join(sorted(d))) for s, (n, d) in sources.items()]
    cols = max(1, math.ceil(len(lines) / SOURCES_PER_COLUMN))
    w = int((BODY_W - Inches(0.2) * (cols - 1)) / cols)
    size = 12 if cols == 1 else 10
    for c in range(cols):
        chunk = lines[c * SOURCES_PER_COLUMN:(c + 1) * SOURCES_PER_COLUMN]
        text(slide, MARGIN + c * (w + Inches(0.2)), BODY_TOP, w, BODY_H, chunk, size=size)


def closing_slide(deck: Deck, number: int) -> None:
    """Accuracy (the PDF's disclaimer), the next steps and whom to contact."""
    t, b = deck.t, deck.brand
    slide = new_slide(deck, t("deck.close_title"), number)
    disclaimer = (t("rpt.disclaimer_negotiated", book=deck.book_label) if deck.negotiated
                  else t("rpt.disclaimer_public"))
    text(slide, MARGIN, BODY_TOP, BODY_W, Inches(0.5), t("pdf.disclaimer_title"), size=16, bold=True)
    text(slide, MARGIN, BODY_TOP + Inches(0.5), BODY_W, Inches(1.2), disclaimer, size=14)
    text(slide, MARGIN, BODY_TOP + Inches(1.9), BODY_W, Inches(1.6),
         [t("deck.next_1"), t("deck.next_2"), t("deck.next_3")], size=15, bullets=True)
    text(slide, MARGIN, BODY_TOP + Inches(3.7), BODY_W, Inches(1.2),
         [b.company(t.lang), t("deck.contact", email=b.contact.email, phone=b.contact.phone, web=b.contact.web)],
         size=16, color=deck.rgb("primary"), bold=True)

