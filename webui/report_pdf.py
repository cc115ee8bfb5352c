"""The PDF report (A4, English or Chinese): cover, executive summary, charts, yearly cash flows,
assumptions with sources, a short method, the article's claims beside the model, a disclaimer.

Built as HTML and printed by Debian's Chromium (Playwright, ``/usr/bin/chromium``); the charts
are the app's plotly figures rendered to SVG by kaleido on the same Chromium (never a browser
download), so they stay vector. Chromium embeds the fonts it uses (Noto Sans CJK for Chinese).
User text is HTML-escaped; the charts are embedded as data-URI images, so no markup can leak in.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import os

import costmodel
from costmodel import price_books
from costmodel.claims import check_preset
from costmodel.formatting import format_money, format_number, format_share
from costmodel.presets import list_presets
from costmodel.tco import CATEGORIES
from costmodel.timeline import crossovers, monthly_cumulative

from . import charts, labels
from .i18n import Translator
from .money import Money

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
CSS = """
@page { size: A4; margin: 16mm 14mm; }
body { font-family: "Noto Sans CJK SC", "Noto Sans", "DejaVu Sans", sans-serif; font-size: 10pt; color: #1F2933; }
h1 { font-size: 22pt; margin: 0 0 6pt; } h2 { font-size: 14pt; margin: 16pt 0 6pt; border-bottom: 1px solid #ccd; }
table { border-collapse: collapse; width: 100%; margin: 4pt 0 8pt; } td, th { border: 1px solid #d5dae0;
 padding: 2pt 4pt; font-size: 8.5pt; text-align: left; } th { background: #F3F6F9; } td.n { text-align: right; }
.cover { page-break-after: always; padding-top: 60mm; } .muted { color: #667; } img { width: 100%; }
.chart { page-break-inside: avoid; margin: 6pt 0; } .box { border: 1px solid #d5dae0; padding: 8pt; }
"""

_kaleido_started = False


def _svg(fig) -> str:
    """A figure as a data-URI SVG image, rendered by kaleido on Debian's Chromium."""
    global _kaleido_started
    import kaleido
    import plotly.io as pio

    if os.path.exists(CHROMIUM):
        os.environ.setdefault("BROWSER_PATH", CHROMIUM)
    if not _kaleido_started:
        kaleido.start_sync_server(silence_warnings=True, mathjax=False)  # no LaTeX in charts: no CDN fetch
        _kaleido_started = True
    svg = pio.to_image(fig, format="svg", width=900, height=420)
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")


def _table(header: list[str], rows: list[list[str]], numeric_from: int = 1) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td{' class=n' if i >= numeric_from else ''}>{html.escape(str(c))}</td>"
                         for i, c in enumerate(row)) + "</tr>"
        for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def report_html(scenario: costmodel.Scenario, lang: str = "en", preset_id: str | None = None,
                currency: str | None = None, rate: float = 1.0) -> str:
    """The report as one HTML document; money converted to ``currency`` at ``rate`` for display."""
    t = Translator(lang)
    res = costmodel.evaluate(scenario)
    d = res.to_dict()
    cur = currency or res.currency
    if cur == res.currency:
        rate = 1.0
    names = labels.fabric_names(t)
    fams = {f.id: f.family for f in res.fabrics}
    L = labels.chart_labels(t)
    show = Money(cur, cur, 1.0).short  # charts convert with fx=rate first
    conv = Money(res.currency, cur, rate)

    def fm(value: float) -> str:
        return format_money(value * rate, cur)

    rec = res.recommendation
    base = res.fabric(res.baseline)
    best = res.fabric(rec.cost_optimal)
    e = html.escape

    parts = [f"<html><head><meta charset='utf-8'><style>{CSS}</style></head><body>"]
    parts.append(
        f"<div class='cover'><h1>{e(t('pdf.title'))}</h1><p style='font-size:14pt'>{e(scenario.name)}</p>"
        f"<p class='muted'>{e(t('pdf.cover', date=dt.date.today().isoformat(), book=res.price_book, currency=cur))}"
        f"{e('' if cur == res.currency else f' (1 {res.currency} = {rate:g} {cur})')}"
        f"</p></div>"
    )
    parts.append(f"<h2>{e(t('pdf.summary'))}</h2><div class='box'>")
    parts.append(f"<p>{e(t('pdf.summary_text', best=names[best.id], delta=fm(best.delta_vs_baseline), base=names[base.id], years=res.horizon_years, days=format_number(best.metrics['run_days'], 1), payback='—' if best.payback_years is None else format_number(best.payback_years, 1)))}</p>")  # noqa: E501
    parts.append(f"<p>{e(t('pdf.rule_vs_cost', rule=names.get(rec.rule, '—') if rec.rule else '—', best=names[best.id]))}</p>")  # noqa: E501
    parts.append("<ul>" + "".join(f"<li>{e(labels.reason(t, rc, conv))}</li>"
                                  for rc in d["recommendation"]["reason_codes"]) + "</ul></div>")
    rows = [[names[f.id], fm(f.tco_total), fm(f.delta_vs_baseline), fm(f.npv),
             "—" if f.payback_years is None else format_number(f.payback_years, 1),
             format_number(f.metrics["run_days"], 1), format_share(f.metrics["gpu_utilization"]),
             format_number(f.metrics["interruptions_per_year"], 1), format_share(f.metrics["cpu_overhead_share"], 2)]
            for f in res.fabrics]
    parts.append(_table([t("spec.fabric"), t("kpi.tco", years=res.horizon_years), t("chart.delta_vs_baseline"),
                         t("kpi.npv"), t("kpi.payback"), t("kpi.run_days"), t("kpi.gpu_util"),
                         t("kpi.interruptions"), t("kpi.cpu")], rows))

    parts.append(f"<h2>{e(t('pdf.charts'))}</h2>")
    months, curves = monthly_cumulative(d)
    crossings = [(base.id, f.id, mo, c) for f in res.fabrics if f.id != base.id
                 for mo, c in crossovers(months, curves[base.id], curves[f.id])]
    figs = [
        charts.breakdown_bar(d, L, show, rate),
        charts.cumulative_cost(months, curves, crossings, names, fams, L, show, rate),
        charts.savings_waterfall(base.breakdown, best.breakdown, names[base.id], names[best.id], L, show, rate)
        if best.id != base.id else None,
        charts.scale_chart(costmodel.sweep(scenario, nodes=_sweep_nodes()), "tco_total", res.baseline, names, fams,
                           L, show, rate),
        charts.tornado_chart(costmodel.tornado(scenario, best.id if best.id != base.id else None), L, show, rate)
        if len(res.fabrics) > 1 else None,
    ]
    mc = costmodel.monte_carlo(scenario, draws=5000, seed=1)
    figs.append(charts.mc_histogram(mc.tco, list(mc.fabric_ids), names, fams, mc.summary(), L, show, rate))
    for fig in figs:
        if fig is not None:
            parts.append(f"<div class='chart'><img src='{_svg(fig)}'></div>")

    parts.append(f"<h2>{e(t('pdf.cash_flows'))}</h2>")
    for f in res.fabrics:
        parts.append(f"<p><b>{e(names[f.id])}</b></p>")
        parts.append(_table([t("chart.axis_month").replace(t("chart.axis_month"), t("pdf.year")),
                             *[t(f"cat.{c}") for c in CATEGORIES], t("chart.total")],
                            [[str(y["year"]), *[fm(y[c]) for c in CATEGORIES], fm(y["total"])] for y in f.yearly]))

    parts.append(f"<h2>{e(t('pdf.assumptions'))}</h2>")
    cat = costmodel.catalog.load_catalog()
    book = price_books.for_scenario(scenario, cat)
    arows = []
    for fid in scenario.fabrics:
        for entry in (cat.fabrics[fid], book.fabrics[fid]):
            for q in type(entry).model_fields:
                qty = getattr(entry, q)
                if hasattr(qty, "typical"):
                    arows.append([names[fid], t.get(f"q.{q}", q), f"{qty.typical:,.6g}",
                                  cat.references[qty.source].title[:90], qty.as_of])
    parts.append(_table([t("assumptions.col_item"), t("assumptions.col_quantity"), t("assumptions.col_default"),
                         t("assumptions.col_source"), t("assumptions.col_as_of")], arows, numeric_from=2))

    parts.append(f"<h2>{e(t('method.title'))}</h2><p>{e(t('method.intro'))}</p>")
    if preset_id in list_presets():
        parts.append(f"<h2>{e(t('method.claims'))}</h2><p>{e(t('method.claims_intro'))}</p>")
        crow = [[c.text_zh if lang == "zh" and c.text_zh else c.text, names.get(c.fabric, c.fabric),
                 str(c.claimed), f"{c.modelled:,.4g}", t("method.reproduced") if c.reproduced
                 else t("method.not_reproduced")] for c in check_preset(preset_id)]
        parts.append(_table([t("method.col_claim"), t("method.col_fabric"), t("method.col_claimed"),
                             t("method.col_modelled"), t("method.col_verdict")], crow, numeric_from=2))
    parts.append(f"<h2>{e(t('pdf.disclaimer_title'))}</h2><p class='muted'>{e(t('pdf.disclaimer'))}</p>")
    parts.append("</body></html>")
    return "".join(parts)


def _sweep_nodes():
    import numpy as np

    return np.unique(np.geomspace(2, 16_384, 120).round().astype(int))


def report_pdf(scenario: costmodel.Scenario, lang: str = "en", preset_id: str | None = None,
               currency: str | None = None, rate: float = 1.0) -> bytes:
    """The report as PDF bytes (A4), printed by Debian's Chromium."""
    from playwright.sync_api import sync_playwright

    document = report_html(scenario, lang, preset_id, currency, rate)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page()
            page.set_content(document, wait_until="load")
            return page.pdf(format="A4", print_background=True)
        finally:
            browser.close()
