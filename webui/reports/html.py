"""The PDF report (A4, English or Chinese): cover, executive summary, charts, the training plan and
step time (:mod:`webui.reports.training`), yearly cash flows,
assumptions with sources, a short method, the article's claims beside the model, a disclaimer.

Built as HTML and printed by Debian's Chromium (``/usr/bin/chromium``, over its DevTools pipe). The charts
are the app's plotly figures, drawn to SVG by plotly.js (from the plotly package, inlined: no
network) inside that same Chromium just before printing, so one Chromium does all the work and
the charts stay vector. Chromium embeds the fonts it uses (Noto Sans CJK for Chinese). User text
is HTML-escaped; the figures travel as JSON with ``<`` escaped and are shown as SVG images, so no
markup can leak in. :mod:`webui.reports.pdf_service` prints the app's reports; :func:`report_pdf` is the
command line's one-off.
"""

from __future__ import annotations

import datetime as dt
import functools
import html
import re
from pathlib import Path
from typing import TYPE_CHECKING

import plotly
import plotly.io as pio

import costmodel
from costmodel.analysis import uncertainty
from costmodel.analysis.timeline import cumulative
from costmodel.analysis.work_risk import work_monte_carlo
from costmodel.catalog.currency import shown_rate
from costmodel.catalog.formatting import format_share, format_sig
from costmodel.evidence.claims import check_preset
from costmodel.pipeline.facility_checks import cluster_facts
from costmodel.pipeline.tco import CATEGORIES
from costmodel.scenario import price_books
from costmodel.scenario import titles as model_titles
from costmodel.scenario.presets import list_presets
from webui.charts.costs import breakdown_bar, cumulative_cost, savings_waterfall
from webui.charts.risk import mc_histogram, tornado_chart
from webui.charts.scale import scale_chart
from webui.i18n import labels
from webui.i18n.money import Money
from webui.i18n.translator import Translator
from webui.reports.brand import Brand, brand
from webui.reports.doc_money import DocumentMoney
from webui.reports.pdf_service import Printer
from webui.reports.proposal import Proposal, brand_css, contents, cover, numbered, print_options
from webui.reports.summary import HEADLINE_H, key_figures, summary_page
from webui.reports.training import training_section
from webui.sections import compare_notes, facility
from webui.sections.bom import bom_section
from webui.sections.fincarbon import fincarbon_section
from webui.sections.reliability import reliability_section
from webui.sections.rent import rent_section
from webui.sections.work_risk import REPORT_DRAWS, REPORT_SEED, work_risk_section
from webui.session import share
from webui.session.titles import scenario_title

if TYPE_CHECKING:
    from store.proposals import Proposal as Quote

FABRICS_PER_TABLE = 6  # fabric columns of one assumptions table (A4 portrait)
CSS = """
@page { size: A4; margin: 16mm 14mm; }
body { font-size: 10pt; color: #1F2933; }
h1 { font-size: 20pt; margin: 0 0 4pt; } h2 { font-size: 14pt; margin: 14pt 0 6pt; border-bottom: 1px solid #ccd; }
h3 { font-size: 11pt; margin: 10pt 0 4pt; }
table { border-collapse: collapse; width: 100%; margin: 4pt 0 8pt; } td, th { border: 1px solid #d5dae0;
 padding: 2pt 4pt; font-size: 8.5pt; text-align: left; vertical-align: top; } th { background: #F3F6F9; }
td.n { text-align: right; } td.nw, span.nw { white-space: nowrap; }
tr { break-inside: avoid; page-break-inside: avoid; }
.summary { page-break-after: always; } .summary h1 { font-size: 18pt; } .summary h2 { margin: 6pt 0 4pt; }
.summary h3 { margin: 6pt 0 2pt; } .summary p { margin: 2pt 0; } .summary ul { margin: 2pt 0; }
.summary td, .summary th { font-size: 7.5pt; padding: 1pt 3pt; } .summary table { margin: 2pt 0 4pt; }
.summary .muted { font-size: 8pt; } h2, h3, p > b { break-after: avoid; page-break-after: avoid; }
.sub { font-size: 13pt; margin: 0 0 4pt; } .setup { font-size: 11pt; font-weight: bold; margin: 2pt 0; }
.appendix { page-break-before: always; } .muted { color: #667; } img { width: 100%; }
.chart { page-break-inside: avoid; margin: 6pt 0; } .box { border: 1px solid #d5dae0; padding: 6pt 8pt; }
.warn { border-left: 3pt solid #D55E00; padding: 2pt 6pt; }
ol.sources { padding-left: 0; list-style: none; font-size: 8pt; }
ol.sources li { margin: 0 0 2pt; break-inside: avoid; }
"""

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
CHART_W, CHART_H = 900, 420  # px of each chart's SVG (scaled to the page width)
LEGEND_ROW_H = 20  # px added per legend row past the second, so many fabrics leave the plot its height
# Draws every <img data-fig=N> from the N-th figure with plotly.js's own SVG export, in the printing
# Chromium itself (what kaleido does in a second Chromium), then sets window.__chartsDone.
RENDER_JS = """
(async () => {
  const figs = JSON.parse(document.getElementById("report-figures").textContent);
  const imgs = [...document.querySelectorAll("img[data-fig]")];
  for (const img of imgs) {
    const f = figs[Number(img.dataset.fig)];
    img.src = await Plotly.toImage({data: f.data, layout: f.layout},
                                   {format: "svg", width: WIDTH, height: Number(img.dataset.h) || HEIGHT});
  }
  await Promise.all(imgs.map(i => i.decode().catch(() => null)));
  window.__chartsDone = true;
})().catch(e => { window.__chartsError = String(e); });
""".replace("WIDTH", str(CHART_W)).replace("HEIGHT", str(CHART_H))


def _verdict(t: Translator, reproduced: bool) -> str:
    """A claim's verdict in the page's language."""
    return t("method.reproduced") if reproduced else t("method.not_reproduced")


@functools.cache
def _plotly_js() -> str:
    return PLOTLY_JS.read_text(encoding="utf-8")


def _figures_script(figures: list) -> str:
    """The figures as JSON (``<`` escaped, so no text can close the script) and the renderer."""
    data = "[" + ",".join(pio.to_json(f, validate=False) for f in figures) + "]"
    data = data.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return (f"<script type='application/json' id='report-figures'>{data}</script>"
            f"<script>{_plotly_js()}</script><script>{RENDER_JS}</script>")


def _money(model_currency: str, currency: str, rate: float, lang: str) -> Money:
    """The document's money formatter in ``lang``: one form per amount throughout (:mod:`.doc_money`)."""
    return DocumentMoney(model_currency, currency, rate, lang=lang)


_UNITS = r"%|万|亿|k|M|B|×|个月|天|周|年|days?|weeks?|months?|years?"  # a share, a multiple, money, a duration
_NUMBER = re.compile(rf"[−+\-]?\s?[¥$€]?\d[\d,.]*\s?(?:{_UNITS})?(?:\s\[\d+\])?")


def _one_number(text: str) -> bool:
    """Whether a cell reads as one number (−¥317,340,664; 8.3 %; ¥852 [3]; 3.6 个月): it must never wrap."""
    return len(text) <= 32 and _NUMBER.fullmatch(text.strip()) is not None


_AMOUNT = re.compile(r"[−+]?[¥$€]\d[\d,.]* (?:万|亿|M)(?![^<>]*>)")  # in text, not inside a tag


def _unbroken_amounts(body: str) -> str:
    """``body`` with every compact amount in running text (``+¥27.92 万``, ``$3.05 M``) kept on one line
    (an amount that is a whole table cell has the cell's own ``nw``)."""

    def keep(m: re.Match) -> str:
        whole = body[m.start() - 1:m.start()] == ">" and body[m.end():m.end() + 1] == "<"
        return m.group(0) if whole else f"<span class='nw'>{m.group(0)}</span>"

    return _AMOUNT.sub(keep, body)


def _table(header: list[str], rows: list[list[str]], numeric_from: int = 1, text_after: int | None = None,
           widths: list[int] | None = None) -> str:
    """An HTML table, cells escaped; columns ``numeric_from`` up to (excluding) ``text_after``
    right-aligned; ``widths`` in % of the page width."""
    head = "".join(f"<th{f' style=width:{w}%' if widths else ''}>{html.escape(h)}</th>"
                   for h, w in zip(header, widths or [0] * len(header), strict=True))
    end = len(header) if text_after is None else text_after

    def cell(i: int, c) -> str:
        kind = " ".join(k for k, on in (("n", numeric_from <= i < end), ("nw", _one_number(str(c)))) if on)
        return f"<td{f' class={kind!r}' if kind else ''}>{html.escape(str(c))}</td>"

    body = "".join("<tr>" + "".join(cell(i, c) for i, c in enumerate(row)) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _source(t: Translator, cat, qty, book_label: str) -> str:
    """Where a default comes from, in full: the reference's title; an engineering estimate or a
    negotiated price said in the report's language (the reference texts point into the repository)."""
    if qty.source == price_books.SOURCE:
        return t("rpt.src_negotiated", book=book_label)
    ref = cat.references[qty.source]
    if qty.source == "engineering-estimate":  # its text points into the repository
        return t("rpt.src_assumption")
    return labels.reference_title(t, ref)  # the Chinese description in a Chinese report


def report_html(scenario: costmodel.Scenario, lang: str = "en", preset_id: str | None = None,
                currency: str | None = None, rate: float = 1.0, title: str | None = None,
                proposal: Quote | None = None, the_brand: Brand | None = None) -> str:
    """The report as one HTML document; money converted to ``currency`` at ``rate`` (display units
    per price-book unit) everywhere, the sources table included, written one way (:mod:`.doc_money`).
    ``title`` defaults to the scenario's display title (:func:`webui.session.titles.scenario_title`);
    ``proposal`` (a numbered quote; None: a plain report) fills the cover; ``the_brand`` defaults to ``assets/``.

    A proposal: the branded cover (the title, the cluster and the model, the quote's fields), the
    contents, the executive summary on one page with the headline chart, the key figures, then charts
    and tables of one row per fabric; the detail per fabric (bill of materials, yearly cash flows,
    defaults with their sources) is an appendix, so pages grow slowly with fabrics."""
    t = Translator(lang)
    the_brand = the_brand or brand()
    res = costmodel.evaluate(scenario)
    cur, rate = shown_rate(res.currency, currency, rate)
    title = title or scenario_title(scenario, preset_id if preset_id in list_presets() else share.BLANK, t)
    names = labels.fabric_names(t)
    conv = _money(res.currency, cur, rate, t.lang)
    negotiated = scenario.custom_price_book is not None
    e = html.escape
    h = res.horizon_years
    residual = float(scenario.finance.residual_value_frac)
    cat = costmodel.catalog.loader.load_catalog()
    base_book = cat.price_book(scenario.price_book)
    book_label = (price_books.label(scenario) if negotiated
                  else (base_book.name_zh or base_book.name) if t.lang == "zh" else base_book.name)
    fx_note = "" if cur == res.currency else f" (1 {res.currency} = {rate:g} {cur})"
    resale_note = (f"<p class='muted'>{e(t('rpt.resale_note', year=h, share=format_share(residual, 0)))}</p>"
                   if residual > 0 and h > 0 else "")
    setup = t("rpt.setup", setup=model_titles.setup_line(scenario, t.lang))
    book_line = t("prop.basis", book=book_label, currency=cur) + fx_note  # the date: the cover's own line
    head = (f"<html><head><meta charset='utf-8'><title>{e(title)}</title>"
            f"<style>{CSS}{brand_css(the_brand)}</style>{print_options(t, the_brand, title)}</head><body>"
            + cover(t, the_brand, title, [setup, facility.rack_line(t, scenario, cat), book_line],
                    Proposal.of(proposal), dt.date.today(), warnings=facility.warning_lines(t, scenario, cat)))
    headline = breakdown_bar(res, labels.chart_labels(t), conv.display.short, rate)
    parts = [summary_page(t, res, names, conv, _table, _chart_img(0, headline, HEADLINE_H),
                          cluster_facts(scenario, cat)),
             key_figures(t, res, names, conv, _table)]
    drawn = uncertainty.sample(scenario, REPORT_DRAWS, REPORT_SEED)  # one sample: the histogram and the same-work table
    charts_html, figures = _charts(t, scenario, res, names, conv, rate, resale_note, drawn)
    parts.append(charts_html)
    figures = [headline, *figures]
    parts.append(training_section(t, scenario, res, names, _table))
    parts.append(rent_section(t, scenario, res, names, _table, conv))  # own vs rent
    parts.append(reliability_section(t, res, names, _table))
    parts.append(fincarbon_section(t, scenario, res, names, _table, conv))  # after tax and carbon
    work_mc = work_monte_carlo(scenario, drawn=drawn, work=res.equal_work)  # the same work under uncertainty
    parts.append(work_risk_section(t, scenario, work_mc.summary(), names, _table, conv, h))
    parts.append(f"<h2>{e(t('method.title'))}</h2><p>{e(t('rpt.method_intro', years=h))}</p>")
    if preset_id in list_presets():
        parts.append(f"<h2>{e(t('method.claims'))}</h2><p>{e(t('method.claims_intro'))}</p>")
        crow = [[c.text_zh if lang == "zh" and c.text_zh else c.text, names.get(c.fabric, c.fabric),
                 str(c.claimed), f"{c.modelled:,.4g}", _verdict(t, c.reproduced),
                 "—" if c.reference is None else f"{c.reference:,.4g} ({_verdict(t, c.reference_reproduced)})"]
                for c in check_preset(preset_id)]
        parts.append(_table([t("method.col_claim"), t("method.col_fabric"), t("method.col_claimed"),
                             t("method.col_modelled"), t("method.col_verdict"), t("method.col_reference")], crow,
                            numeric_from=2, text_after=4))
    disclaimer = (t("rpt.disclaimer_negotiated", book=book_label) if negotiated else t("rpt.disclaimer_public"))
    parts.append(f"<h2>{e(t('pdf.disclaimer_title'))}</h2><p class='muted'>{e(disclaimer)}</p>")
    parts.append(f"<div class='appendix'><h1>{e(t('rpt.appendix'))}</h1>"
                 f"<p class='muted'>{e(t('rpt.appendix_intro'))}</p>")
    parts.append(bom_section(t, res, names, _table, conv, prices=not negotiated))
    parts.append(_cash_flows(t, res, names, conv, resale_note))
    parts.append(_assumptions(t, scenario, cat, names, conv, book_label, fx_note if cur != res.currency else ""))
    parts.append("</div>")
    body, entries = numbered(_unbroken_amounts("".join(parts)))
    return "".join([head, contents(t, entries), body, _figures_script(figures), "</body></html>"])


def _charts(t: Translator, scenario, res, names: dict, conv: Money, rate: float, resale_note: str,
            drawn) -> tuple[str, list]:
    """The charts section (an image per chart, drawn before printing) and the figures to draw;
    ``drawn``: the Monte Carlo sample of the histogram."""
    e = html.escape
    fams = {f.id: f.family for f in res.fabrics}
    L = labels.chart_labels(t)
    show = conv.display.short  # charts convert with fx=rate first
    base, best = res.fabric(res.baseline), res.fabric(res.recommendation.cost_optimal)
    cum = cumulative(res)
    cross_head, cross_rows = compare_notes.crossing_table(t, conv, cum, names)
    cross_note = (f"<p class='muted'>{e(t('crossings.title'))}</p>" + _table(cross_head, cross_rows)
                  if cross_rows else "")
    figs = [  # the TCO by category is the summary's headline chart
        (cumulative_cost(cum.months, cum.curves, cum.crossings, names, fams, L, show, rate),
         resale_note + cross_note),
        (savings_waterfall(base.breakdown, best.breakdown, names[base.id], names[best.id], L, show, rate,
                           short_names=(L[f"short.{base.id}"], L[f"short.{best.id}"]))
         if best.id != base.id else None, ""),
        (scale_chart(costmodel.sweep(scenario, nodes=_sweep_nodes()), "tco_total", res.baseline, names, fams,
                     L, show, rate), ""),
        (tornado_chart(costmodel.tornado(scenario, best.id if best.id != base.id else None), L, show, rate)
         if len(res.fabrics) > 1 else None, ""),
    ]
    mc = costmodel.monte_carlo(scenario, drawn=drawn)
    figs.append((mc_histogram(mc.tco, list(mc.fabric_ids), names, fams, mc.summary(), L, show, rate), ""))
    shown = [(fig, note) for fig, note in figs if fig is not None]
    body = "".join(_chart_img(i, fig, _chart_height(fig), note) for i, (fig, note) in enumerate(shown, start=1))
    return f"<h2>{e(t('pdf.charts'))}</h2>{body}", [fig for fig, _ in shown]


def _chart_img(index: int, fig, height: int, note: str = "") -> str:
    """The image the ``index``-th figure is drawn into (``height`` px tall before scaling), then ``note``."""
    return f"<div class='chart'><img data-fig='{index}' data-h='{height}' alt=''>{note}</div>"


def _chart_height(fig) -> int:
    """A chart's height in the PDF [px]: :data:`CHART_H`, taller by a row per two legend entries past four."""
    entries = sum(1 for tr in fig.data if tr.showlegend is not False and tr.name)
    return CHART_H + LEGEND_ROW_H * max(0, -(-entries // 2) - 2)


def _cash_flows(t: Translator, res, names: dict, conv: Money, resale_note: str) -> str:
    """Each fabric's yearly cash flows by category (the appendix)."""
    e = html.escape
    parts = [f"<h2>{e(t('pdf.cash_flows'))}</h2>", resale_note]
    for f in res.fabrics:
        parts.append(f"<p><b>{e(names[f.id])}</b></p>")
        parts.append(_table([t("pdf.year"), *[t(f"cat.{c}") for c in CATEGORIES], t("chart.total")],
                            [[str(y["year"]), *[conv(y[c]) for c in CATEGORIES], conv(y["total"])] for y in f.yearly],
                            widths=[6, *[(94 - 13) // len(CATEGORIES)] * len(CATEGORIES), 13]))
    return "".join(parts)


def _price(conv: Money, value: float) -> str:
    """A price as shown: whole units from 100 up (¥852), cents below (¥2.84)."""
    return conv(value, digits=0 if abs(conv.convert(value)) >= 100 else 2)


def _assumptions(t: Translator, scenario, cat, names: dict, conv: Money, book_label: str, fx_note: str) -> str:
    """Every default behind the figures: the GPU's prices, then each quantity as a row with one column
    per fabric (:data:`FABRICS_PER_TABLE` to a table), a value's source as a number into one list of
    sources with their dates."""
    e = html.escape
    book = price_books.for_scenario(scenario, cat)
    sources: dict[str, tuple[int, set[str]]] = {}

    def cite(qty) -> str:
        text = _source(t, cat, qty, book_label)
        n, dates = sources.setdefault(text, (len(sources) + 1, set()))
        dates.add(str(qty.as_of))
        return f"[{n}]"

    parts = [f"<h2>{e(t('pdf.assumptions'))}</h2>"]
    if fx_note:
        parts.append(f"<p class='muted'>{e(t('rpt.prices_converted', currency=conv.currency, fx=fx_note.strip()))}</p>")
    parts.append(f"<p class='muted'>{e(t('rpt.sources_note'))}</p>")
    gpu = scenario.cluster.gpu
    grows = [[t.get(f"q.{q}", q), f"{_price(conv, getattr(book.gpus[gpu], q).typical)} "
              f"{cite(getattr(book.gpus[gpu], q))}"] for q in type(book.gpus[gpu]).model_fields]
    parts.append(_table([t("assumptions.col_quantity"), cat.gpus[gpu].name], grows, widths=[40, 60]))
    quantities: dict[str, dict[str, str]] = {}
    for fid in scenario.fabrics:
        for entry, is_money in ((cat.fabrics[fid], False), (book.fabrics[fid], True)):
            for q in type(entry).model_fields:
                qty = getattr(entry, q)
                if hasattr(qty, "typical"):
                    value = _price(conv, qty.typical) if is_money else format_sig(qty.typical, 6)  # never 1e-06
                    quantities.setdefault(q, {})[fid] = f"{value} {cite(qty)}"
    fabrics = list(scenario.fabrics)
    for i in range(0, len(fabrics), FABRICS_PER_TABLE):
        group = fabrics[i:i + FABRICS_PER_TABLE]
        rows = [[t.get(f"q.{q}", q), *(cells.get(fid, "—") for fid in group)] for q, cells in quantities.items()]
        width = 72 // len(group)
        parts.append(_table([t("assumptions.col_quantity"), *(names[f] for f in group)], rows,
                            widths=[100 - width * len(group), *([width] * len(group))]))
    parts.append(f"<h3>{e(t('rpt.sources_title'))}</h3><ol class='sources'>")
    parts.extend(f"<li>{e(t('rpt.source_dated', n=n, source=text, as_of=', '.join(sorted(dates))))}</li>"
                 for text, (n, dates) in sources.items())
    return "".join(parts) + "</ol>"


def _sweep_nodes():
    import numpy as np

    return np.unique(np.geomspace(2, 16_384, 120).round().astype(int))


def report_pdf(scenario: costmodel.Scenario, lang: str = "en", preset_id: str | None = None,
               currency: str | None = None, rate: float = 1.0, title: str | None = None,
               proposal: Quote | None = None) -> bytes:
    """The report as PDF bytes (A4), printed by a Chromium started for this call (the command line;
    the app prints through :mod:`webui.reports.pdf_service`, which keeps one Chromium per process)."""

    document = report_html(scenario, lang, preset_id, currency, rate, title, proposal)
    with Printer() as printer:
        return printer.print(document)
