"""Cost charts of the Compare page and the PDF report: the TCO breakdown by category, the cumulative
cost over the horizon and the savings waterfall against the baseline (no Streamlit here; conventions in
:mod:`webui.charts.base`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from costmodel.pipeline.tco import CATEGORIES
from webui.charts.base import (
    CATEGORY_COLORS,
    DECREASE_COLOR,
    INCREASE_COLOR,
    MAX_TOTAL_LABELS,
    OTHER_COLOR,
    TOTAL_COLOR,
    Labels,
    Money,
    amount,
    fabric_styles,
    is_cjk,
    make_figure,
    make_layout,
    money_axis,
    short_label,
    tr,
)


def breakdown_bar(result, labels: Labels, money: Money, fx: float = 1.0, *,
                  separators: str = ",.") -> go.Figure:
    """Stacked bar per fabric of the six cost categories; the total is written above each bar.

    ``result`` is a :class:`~costmodel.pipeline.results.Result` (its ``to_dict()`` document works too).
    One trace per category (in :data:`costmodel.pipeline.tco.CATEGORIES` order), bars stacked
    ``relative`` so a negative category (never in the model today) would stack below zero.

    Bars are labelled by each fabric's short label (``short.<id>``, else its name), the hover
    names it in full; totals are written above at most :data:`MAX_TOTAL_LABELS` bars.

    Label keys: ``breakdown_title``, ``axis_cost``, ``total``, the six
    category ids (``compute_capex``, ``network_capex``, ``energy``, ``cpu_overhead``,
    ``interruptions``, ``operations``) and, optionally, each fabric id (else the
    catalog's English name is shown) and ``short.<id>``.
    """
    if isinstance(result, Mapping):  # the JSON document
        fabrics = [(f["id"], f["name"], f["tco_total"], f["breakdown"]) for f in result["fabrics"]]
    else:
        fabrics = [(f.id, f.name, f.tco_total, f.breakdown) for f in result.fabrics]
    full = [str(labels.get(fid, name)) if labels else name for fid, name, _, _ in fabrics]
    names = [short_label(labels, fid, n) for (fid, *_), n in zip(fabrics, full, strict=True)]
    totals = [float(tco) * fx for _, _, tco, _ in fabrics]
    traces = []
    for cat in CATEGORIES:
        vals = [float(b[cat]) * fx for *_, b in fabrics]
        cat_name = tr(labels, cat)
        traces.append(dict(
            type="bar", x=names, y=vals, name=cat_name, marker=dict(color=CATEGORY_COLORS.get(cat, OTHER_COLOR)),
            hovertext=[f"<b>{n}</b><br>{cat_name}: {amount(money, v)}<br>{tr(labels, 'total')}: {amount(money, t)}"
                       for n, v, t in zip(full, vals, totals, strict=True)],
            hovertemplate="%{hovertext}<extra></extra>",
        ))
    tops = [sum(max(0.0, float(b[c]) * fx) for c in CATEGORIES) for *_, b in fabrics]
    size = 11 if len(fabrics) <= 8 else 9  # many bars: narrower, so smaller totals
    annotations = [dict(x=n, y=top, text=amount(money, total), showarrow=False, yanchor="bottom", font=dict(size=size))
                   for n, top, total in zip(names, tops, totals, strict=True)]
    if len(fabrics) > MAX_TOTAL_LABELS:
        annotations = []
    lows = [sum(min(0.0, float(b[c]) * fx) for c in CATEGORIES) for *_, b in fabrics]
    # no x title: the bars name the fabrics, and a title would run into the legend under labels
    # that many bars tilt
    return make_figure(traces, make_layout(tr(labels, "breakdown_title"), separators, barmode="relative",
                                   annotations=annotations, plain=is_cjk(labels),
                                   yaxis=dict(title=dict(text=tr(labels, "axis_cost")),
                                              **money_axis(labels, money, [0.0, *tops, *lows]))))


def cumulative_cost(months, curves: Mapping[str, np.ndarray], crossings: Sequence[tuple], names: Mapping[str, str],
                    families: Mapping[str, str], labels: Labels, money: Money, fx: float = 1.0, *,
                    separators: str = ",.") -> go.Figure:
    """Cumulative cost per fabric month by month, crossovers marked.

    ``months`` and ``curves`` come from :func:`costmodel.analysis.timeline.monthly_cumulative`;
    ``crossings`` is a list of ``(fid_a, fid_b, month, cost)`` (cost in model money, e.g.
    from :func:`costmodel.analysis.timeline.crossovers`). One line trace per fabric, named by its short
    label (``labels["short.<fid>"]``, else ``names[fid]``; the hover names it in full), plus one
    marker trace named ``labels["crossover"]`` when there is at least one crossing. Crossings
    carry no text on the plot (their labels overlap and leave it with many fabrics): the page
    lists them under the chart. x ticks every 12 months.

    Label keys: ``cumulative_title``, ``axis_month``, ``axis_cumulative_cost``, ``month``,
    ``crossover``.
    """
    m = np.asarray(months)
    styles = fabric_styles(curves, families)
    month_t = tr(labels, "month")
    traces = []
    for fid, curve in curves.items():
        y = np.asarray(curve, dtype=float) * fx
        name = names.get(fid, fid)
        st = styles[fid]
        traces.append(dict(
            type="scatter", x=m, y=y, mode="lines", name=short_label(labels, fid, name),
            line=dict(color=st["color"], dash=st["dash"], width=2),
            hovertext=[f"<b>{name}</b><br>{month_t} {mi}: {amount(money, v)}"
                       for mi, v in zip(m.astype(int).tolist(), y.tolist(), strict=True)],  # plain floats: fast
            hovertemplate="%{hovertext}<extra></extra>",
        ))
    if crossings:
        cross_t = tr(labels, "crossover")
        xs = [float(c[2]) for c in crossings]
        ys = [float(c[3]) * fx for c in crossings]
        texts = [f"<b>{names.get(a, a)} × {names.get(b, b)}</b><br>{month_t} {mo:.1f}: {amount(money, c)}"
                 for (a, b, *_), mo, c in zip(crossings, xs, ys, strict=True)]
        traces.append(dict(
            type="scatter", x=xs, y=ys, mode="markers", name=cross_t,
            marker=dict(symbol="x-thin-open", size=14, line=dict(width=3, color="#000000"), color="#000000"),
            hovertext=texts, hovertemplate="%{hovertext}<extra></extra>",
        ))
    last = int(m[-1]) if m.size else 0
    every = [np.asarray(c, dtype=float) * fx for c in curves.values()]
    return make_figure(traces, make_layout(
        tr(labels, "cumulative_title"), separators, plain=is_cjk(labels),
        xaxis=dict(title=dict(text=tr(labels, "axis_month")), tick0=0, dtick=12, range=[0, max(last, 1)]),
        yaxis=dict(title=dict(text=tr(labels, "axis_cumulative_cost")),
                   **money_axis(labels, money, np.concatenate(every) if every else [])),
    ))


def savings_waterfall(base_breakdown: Mapping[str, float], fabric_breakdown: Mapping[str, float], base_name: str,
                      fabric_name: str, labels: Labels, money: Money, fx: float = 1.0, *,
                      separators: str = ",.", short_names: tuple[str, str] | None = None) -> go.Figure:
    """Waterfall from the baseline's TCO through each category's difference to the fabric's.

    One ``go.Waterfall`` trace with 8 bars: ``base_name`` (absolute, the baseline total),
    the six categories (relative: fabric − baseline, negative = saving) and ``fabric_name``
    (total; its ``y`` is 0 and Plotly sums the steps, its text is the fabric's total).
    Increases are vermillion, decreases (savings) blue, totals grey. ``short_names`` (the two
    fabrics' short labels) label the two total bars when given; the hover names them in full.

    Label keys: ``waterfall_title``, ``axis_cost``, the six category ids, ``increase``,
    ``decrease``, ``total``.
    """
    base_total = sum(float(base_breakdown[c]) for c in CATEGORIES) * fx
    fab_total = sum(float(fabric_breakdown[c]) for c in CATEGORIES) * fx
    steps = [(float(fabric_breakdown[c]) - float(base_breakdown[c])) * fx for c in CATEGORIES]
    base_x, fabric_x = short_names or (base_name, fabric_name)
    x = [base_x, *[tr(labels, c) for c in CATEGORIES], fabric_x]
    y = [base_total, *steps, 0.0]
    inc, dec, tot = tr(labels, "increase"), tr(labels, "decrease"), tr(labels, "total")
    text = [amount(money, base_total), *[("+" if s > 0 else "") + amount(money, s) for s in steps],
            amount(money, fab_total)]
    hover = [f"<b>{base_name}</b><br>{tot}: {text[0]}"]
    hover += [f"<b>{x[i + 1]}</b><br>{inc if s > 0 else dec}: {amount(money, s)}" for i, s in enumerate(steps)]
    hover += [f"<b>{fabric_name}</b><br>{tot}: {text[-1]}"]
    trace = dict(
        type="waterfall", x=x, y=y, measure=["absolute", *["relative"] * len(CATEGORIES), "total"],
        text=text, textposition="outside", cliponaxis=False, name=tot, showlegend=False,
        increasing=dict(marker=dict(color=INCREASE_COLOR)),
        decreasing=dict(marker=dict(color=DECREASE_COLOR)),
        totals=dict(marker=dict(color=TOTAL_COLOR)),
        connector=dict(line=dict(color="#999999", width=1)),
        hovertext=hover, hovertemplate="%{hovertext}<extra></extra>",
    )
    yaxis = dict(title=dict(text=tr(labels, "axis_cost")))
    # Two large totals differing by a few percent: zoom onto the levels the steps pass through
    # (the total bars are cut at the bottom), else the steps would be invisible slivers.
    levels = np.append(np.cumsum(y[:-1]), fab_total)
    lo, hi = float(levels.min()), float(levels.max())
    span = hi - lo
    if lo > 0 and span > 0 and lo - 1.5 * span > 0.25 * lo:
        yaxis["range"] = [lo - 1.5 * span, hi + 0.4 * span]
        yaxis.update(money_axis(labels, money, yaxis["range"]))
    else:
        yaxis.update(money_axis(labels, money, [0.0, lo, hi, base_total, fab_total]))
    title = tr(labels, "waterfall_title")
    return make_figure([trace], make_layout(title, separators, yaxis=yaxis, plain=is_cjk(labels)))
