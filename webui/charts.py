"""Plotly figures of the dashboard, built from plain model output (no Streamlit here).

Every builder takes plain data, ``labels`` (already-translated texts, looked up with
``labels.get(key, key)`` so a missing text shows its key), ``money`` (formats an amount that
is *already* in the display currency) and ``fx`` (display units per model unit: every model
amount is multiplied by ``fx`` before it is drawn or formatted; conversion happens here, at
display, never in the model). The label keys each builder reads are listed in its docstring.

``separators`` (keyword) is *thousands separator, then decimal mark*, like Python's ``,.``
format spec: ``",."`` gives 1,234.5 and ``".,"`` gives 1.234,5. Plotly's own
``layout.separators`` is the other way round (decimal first); :func:`plotly_separators`
converts.

Colours: one colour per fabric family (:data:`FAMILY_COLORS`, Okabe–Ito, colour-blind safe);
fabrics of the same family differ by dash, marker symbol or fill pattern. Cost categories
use Paul Tol's colour-blind-safe "bright" scheme (:data:`CATEGORY_COLORS`).

Speed: every figure is written as plain Plotly JSON (trace and layout dicts, in the form
Plotly's validators would produce) and wrapped once with ``go.Figure(..., _validate=False)``;
property validation would cost tens of milliseconds per figure on every rerun.
"""

from __future__ import annotations

import contextvars
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly.basedatatypes import BaseFigure

from costmodel.pipeline.tco import CATEGORIES

Money = Callable[[float], str]
Labels = Mapping[str, str]

#: One colour per fabric family (Okabe & Ito 2008), readable on white.
FAMILY_COLORS = {
    "tcp": "#666666",  # neutral grey: the commodity baseline
    "roce": "#0072B2",  # blue
    "iwarp": "#009E73",  # bluish green
    "infiniband": "#D55E00",  # vermillion
}
OTHER_COLOR = "#CC79A7"  # reddish purple, for a family not listed above
#: One colour per cost category (Tol "bright").
CATEGORY_COLORS = {
    "compute_capex": "#4477AA",
    "network_capex": "#66CCEE",
    "energy": "#CCBB44",
    "cpu_overhead": "#AA3377",
    "network_wait": "#BBBBBB",
    "interruptions": "#EE6677",
    "operations": "#228833",
}
INCREASE_COLOR = "#D55E00"  # a cost goes up
DECREASE_COLOR = "#0072B2"  # a cost goes down (saving)
TOTAL_COLOR = "#555555"
LOW_COLOR = "#56B4E9"  # tornado: input at its low end
HIGH_COLOR = "#E69F00"  # tornado: input at its high end
REGION_FILL = "#000000"  # decision tiers: neutral grey shades, darker to the right
REGION_OPACITY = (0.03, 0.07, 0.11, 0.15)
MAX_BREAK_EVEN_LABELS = 6  # more break-evens: lines and hover only
DASHES = ("solid", "dash", "dot", "dashdot")
SYMBOLS = ("circle", "square", "diamond", "triangle-up")
PATTERNS = ("", "/", ".", "x")
MAX_POINTS = 600  # per trace
MAX_TOTAL_LABELS = 24  # breakdown: totals written above at most this many bars (beyond: hover only)
TEMPLATE = "plotly_white"


# ---------------------------------------------------------------------------- helpers


def _t(labels: Labels | None, key: str) -> str:
    """The translated text of ``key``, or the key itself."""
    if labels is None:
        return key
    text = labels.get(key, key)
    return key if text is None else str(text)


def _cjk(labels: Labels | None) -> bool:
    """True when the labels are Chinese (``labels["_lang"] == "zh"``): axes then count money in
    万 / 亿 and write plain numbers in full, never with Latin SI suffixes (k, M, G)."""
    return labels is not None and labels.get("_lang") == "zh"


def _nice_step(span: float, n: int) -> float:
    """A 1 / 2 / 2.5 / 5 × 10^k step that cuts ``span`` into about ``n`` parts.

    >>> _nice_step(100, 5), _nice_step(7.3e7, 6), _nice_step(0.9, 4)
    (20.0, 20000000.0, 0.25)
    """
    raw = span / max(1, n)
    mag = 10.0 ** math.floor(math.log10(raw))
    return next(m * mag for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * mag >= raw * (1 - 1e-9))


def money_ticks(values, money: Money, log: bool = False, n: int = 6) -> dict:
    """``tickvals`` / ``ticktext`` of a money axis covering ``values`` (display money), each tick
    written by ``money`` — in Chinese ``¥5,000 万`` rather than Plotly's ``50M``.

    >>> t = money_ticks([0, 7.3e7], lambda v: f"{v / 1e4:,.0f} 万")
    >>> t["tickvals"][:3], t["ticktext"][-1]
    ([0.0, 20000000.0, 40000000.0], '8,000 万')
    >>> money_ticks([0, 3e8], lambda v: f"¥{v / 1e8:.2f} 亿")["ticktext"][:3]
    ['¥0 亿', '¥0.5 亿', '¥1 亿']
    >>> money_ticks([2e4, 3e6], str, log=True)["tickvals"]
    [20000.0, 50000.0, 100000.0, 200000.0, 500000.0, 1000000.0, 2000000.0]
    """
    v = np.asarray([x for x in np.ravel(np.asarray(values, dtype=float)) if math.isfinite(x)], dtype=float)
    if log:
        v = v[v > 0]
    if not v.size:
        return {}
    lo, hi = float(v.min()), float(v.max())
    if log:
        k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        mult = (1.0,) if k1 - k0 > 3 else (1.0, 2.0, 5.0)
        ticks = [m * 10.0 ** k for k in range(k0, k1 + 1) for m in mult]
        ticks = [x for x in ticks if lo / 10 ** 0.15 <= x <= hi * 10 ** 0.15] or [10.0 ** k0]
    else:
        if hi == lo:
            lo, hi = (lo - 1, hi + 1) if lo == 0 else (min(0.0, lo), max(0.0, hi))
        step = _nice_step(hi - lo, n)
        start, stop = math.floor(lo / step), math.ceil(hi / step)
        ticks = [round(i * step, 10) for i in range(start, stop + 1)]
    # a tick is a round number: ¥20 万, ¥1 亿 rather than ¥20.00 万, ¥1.00 亿
    texts = [re.sub(r"(\.\d*?)0+(?=\D*$)", r"\1", money(x)).replace(". ", " ").rstrip(".") for x in ticks]
    return dict(tickmode="array", tickvals=ticks, ticktext=texts)


def _money_axis(labels: Labels | None, money: Money, values, log: bool = False) -> dict:
    """Axis settings of a money axis: Chinese ticks in 万 / 亿 (:func:`money_ticks`); nothing in English."""
    return money_ticks(values, money, log) if _cjk(labels) else {}


def plotly_separators(separators: str = ",.") -> str:
    """Plotly's ``layout.separators`` (decimal first) from ``thousands + decimal``.

    >>> plotly_separators(",."), plotly_separators(".,"), plotly_separators(" ,")
    ('.,', ',.', ', ')
    """
    if not isinstance(separators, str) or len(separators) != 2:
        raise ValueError("separators must be two characters: thousands separator, then decimal mark")
    return separators[1] + separators[0]


def fabric_styles(fabric_ids: Iterable[str], families: Mapping[str, str]) -> dict[str, dict]:
    """Colour (by family) and dash / symbol / pattern (by rank within the family) per fabric.

    >>> s = fabric_styles(["tcp-100", "roce-100", "roce-400"], {"tcp-100": "tcp", "roce-100": "roce",
    ...                                                         "roce-400": "roce"})
    >>> s["roce-400"]["color"] == s["roce-100"]["color"], s["roce-400"]["dash"]
    (True, 'dash')
    """
    seen: dict[str, int] = {}
    out = {}
    for fid in fabric_ids:
        fam = families.get(fid, "")
        k = seen.get(fam, 0)
        seen[fam] = k + 1
        out[fid] = {
            "color": FAMILY_COLORS.get(fam, OTHER_COLOR),
            "dash": DASHES[k % len(DASHES)],
            "symbol": SYMBOLS[k % len(SYMBOLS)],
            "pattern": PATTERNS[k % len(PATTERNS)],
        }
    return out


def _rgba(hex_color: str, alpha: float) -> str:
    """``#RRGGBB`` → ``rgba(r,g,b,alpha)``.

    >>> _rgba("#0072B2", 0.5)
    'rgba(0,114,178,0.5)'
    """
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha:g})"


def _finite(v) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None


def _short(labels: Labels | None, fid: str, name: str) -> str:
    """A fabric's short label (``labels["short.<fid>"]``, :func:`webui.labels.chart_labels`), else ``name``."""
    text = labels.get(f"short.{fid}") if labels else None
    return name if text is None else str(text)


def _fmt(money: Money, v) -> str:
    """Money text of a display amount; an em dash when it is missing or infinite."""
    v = _finite(v) if v is not None else None
    return "—" if v is None else money(v)


def _num(x: float, separators: str = ",.") -> str:
    """A short plain number (inputs, node counts): 3 significant digits, locale separators.

    >>> _num(1234.0), _num(0.0456), _num(12.5, ".,"), _num(2e7)
    ('1,234', '0.0456', '12,5', '2e+07')
    """
    if not math.isfinite(x):
        return "—"
    if x != 0 and (abs(x) >= 1e6 or abs(x) < 1e-3):
        return f"{x:.3g}"
    digits = max(0, 2 - math.floor(math.log10(abs(x)))) if x else 0
    text = f"{x:,.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text.translate(str.maketrans({",": separators[0], ".": separators[1]}))


class LiteFigure(BaseFigure):
    """A figure that is only its spec: what ``st.plotly_chart`` needs on every rerun.

    Streamlit turns any Plotly figure into a dict with ``to_dict()`` and serialises that dict;
    a ``LiteFigure`` hands over the builder's own dict, so neither Plotly's object tree nor
    its deep copy is built. Use :func:`lite` to get one; everything else should use the
    ordinary figures the builders return.
    """

    def __init__(self, spec: dict):  # deliberately skips BaseFigure.__init__
        self._spec = spec

    def to_dict(self) -> dict:
        return self._spec

    def to_plotly_json(self) -> dict:
        return self._spec


_LITE = contextvars.ContextVar("lite_figures", default=False)
LITE_TEMPLATE = {"layout": {"paper_bgcolor": "white", "plot_bgcolor": "white",
                            "xaxis": {"gridcolor": "#EBF0F8", "zerolinecolor": "#EBF0F8"},
                            "yaxis": {"gridcolor": "#EBF0F8", "zerolinecolor": "#EBF0F8"}}}


def lite(builder: Callable[..., go.Figure], *args, **kwargs) -> LiteFigure:
    """Call a chart builder and return its spec as a :class:`LiteFigure` (for ``st.plotly_chart``)."""
    token = _LITE.set(True)
    try:
        return builder(*args, **kwargs)
    finally:
        _LITE.reset(token)


def _figure(traces: list[dict], layout: dict) -> go.Figure:
    """The figure of plain trace and layout dicts, without Plotly's (slow) property validation."""
    if _LITE.get():
        # the page's chart is drawn with Streamlit's theme, so the ~7 kB plotly_white template
        # would only be serialised and shipped on every rerun: send its few settings we rely on
        return LiteFigure({"data": traces, "layout": {**layout, "template": LITE_TEMPLATE}})
    return go.Figure(data=traces, layout=layout, _validate=False)


def _layout(title: str | None, separators: str, *, xaxis: Mapping | None = None, yaxis: Mapping | None = None,
            shapes: Sequence[dict] = (), annotations: Sequence[dict] = (), plain: bool = False, **kw) -> dict:
    """The common look as a layout dict: white template, legend on top, tight margins, locale separators.

    ``xaxis`` / ``yaxis`` add to the axes (which always get ``automargin``); ``shapes`` and
    ``annotations`` are set only when there are any. ``plain`` (Chinese pages) writes tick
    numbers in full with thousands separators instead of Plotly's SI suffixes (20k, 5M).
    """
    if plain:
        xaxis = dict(exponentformat="none", separatethousands=True, **(xaxis or {}))
        yaxis = dict(exponentformat="none", separatethousands=True, **(yaxis or {}))
    layout = dict(
        # a page's lite figure gets LITE_TEMPLATE in _figure: no deep copy of the full template for it
        template=None if _LITE.get() else pio.templates[TEMPLATE].to_plotly_json(),
        separators=plotly_separators(separators),
        # no title: an empty title object, as update_layout(title=None) used to leave
        title=dict(text=title, x=0.0, xanchor="left", y=0.98, yanchor="top", font=dict(size=16)) if title else {},
        margin=dict(l=10, r=10, t=40 if title else 10, b=10),
        # legend under the plot, so a legend that wraps never runs into the title
        legend=dict(orientation="h", x=0.0, xanchor="left", y=-0.24, yanchor="top", title=dict(text="")),
        hovermode="closest",
        hoverlabel=dict(align="left"),
        font=dict(size=12),
        xaxis=dict(automargin=True, **(xaxis or {})),
        yaxis=dict(automargin=True, **(yaxis or {})),
        **kw,
    )
    if shapes:
        layout["shapes"] = list(shapes)
    if annotations:
        layout["annotations"] = list(annotations)
    return layout


def decimate_indices(x, max_points: int = MAX_POINTS, keep: Iterable[float] = (), neighbours: int = 2,
                     log: bool = True) -> np.ndarray:
    """At most ``max_points`` indices of the ascending ``x``, evenly spread along the axis.

    Always keeps the first and last point and the ``neighbours`` points either side of
    every value in ``keep`` (break-evens, where the cheapest fabric changes), then fills the
    rest evenly in log space (``log``, needs ``x > 0``) or linearly. Returns all indices when
    ``x`` is short enough.

    >>> idx = decimate_indices(np.arange(1, 10_001), 50, keep=[777.5])
    >>> len(idx) <= 50, 0 in idx, 9999 in idx, {775, 776, 777, 778} <= set(idx.tolist())
    (True, True, True, True)
    """
    x = np.asarray(x, dtype=float)
    n = x.size
    if n <= max_points:
        return np.arange(n)
    must = {0, n - 1}
    for v in keep:
        if v is None or not math.isfinite(v):
            continue
        j = int(np.searchsorted(x, v))
        must.update(range(max(0, j - neighbours), min(n, j + neighbours)))
    must_arr = np.array(sorted(must))
    if must_arr.size >= max_points:  # too many break-evens: keep them evenly
        pick = np.linspace(0, must_arr.size - 1, max_points).round().astype(int)
        return np.unique(must_arr[pick])
    budget = max_points - must_arr.size
    use_log = log and x[0] > 0
    targets = np.geomspace(x[0], x[-1], budget) if use_log else np.linspace(x[0], x[-1], budget)
    fill = np.clip(np.searchsorted(x, targets), 0, n - 1)
    return np.union1d(must_arr, fill)


# ---------------------------------------------------------------------------- builders


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
    names = [_short(labels, fid, n) for (fid, *_), n in zip(fabrics, full, strict=True)]
    totals = [float(tco) * fx for _, _, tco, _ in fabrics]
    traces = []
    for cat in CATEGORIES:
        vals = [float(b[cat]) * fx for *_, b in fabrics]
        cat_name = _t(labels, cat)
        traces.append(dict(
            type="bar", x=names, y=vals, name=cat_name, marker=dict(color=CATEGORY_COLORS.get(cat, OTHER_COLOR)),
            hovertext=[f"<b>{n}</b><br>{cat_name}: {_fmt(money, v)}<br>{_t(labels, 'total')}: {_fmt(money, t)}"
                       for n, v, t in zip(full, vals, totals, strict=True)],
            hovertemplate="%{hovertext}<extra></extra>",
        ))
    tops = [sum(max(0.0, float(b[c]) * fx) for c in CATEGORIES) for *_, b in fabrics]
    size = 11 if len(fabrics) <= 8 else 9  # many bars: narrower, so smaller totals
    annotations = [dict(x=n, y=top, text=_fmt(money, total), showarrow=False, yanchor="bottom", font=dict(size=size))
                   for n, top, total in zip(names, tops, totals, strict=True)]
    if len(fabrics) > MAX_TOTAL_LABELS:
        annotations = []
    lows = [sum(min(0.0, float(b[c]) * fx) for c in CATEGORIES) for *_, b in fabrics]
    # no x title: the bars name the fabrics, and a title would run into the legend under labels
    # that many bars tilt
    return _figure(traces, _layout(_t(labels, "breakdown_title"), separators, barmode="relative",
                                   annotations=annotations, plain=_cjk(labels),
                                   yaxis=dict(title=dict(text=_t(labels, "axis_cost")),
                                              **_money_axis(labels, money, [0.0, *tops, *lows]))))


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
    month_t = _t(labels, "month")
    traces = []
    for fid, curve in curves.items():
        y = np.asarray(curve, dtype=float) * fx
        name = names.get(fid, fid)
        st = styles[fid]
        traces.append(dict(
            type="scatter", x=m, y=y, mode="lines", name=_short(labels, fid, name),
            line=dict(color=st["color"], dash=st["dash"], width=2),
            hovertext=[f"<b>{name}</b><br>{month_t} {mi}: {_fmt(money, v)}"
                       for mi, v in zip(m.astype(int).tolist(), y.tolist(), strict=True)],  # plain floats: fast
            hovertemplate="%{hovertext}<extra></extra>",
        ))
    if crossings:
        cross_t = _t(labels, "crossover")
        xs = [float(c[2]) for c in crossings]
        ys = [float(c[3]) * fx for c in crossings]
        texts = [f"<b>{names.get(a, a)} × {names.get(b, b)}</b><br>{month_t} {mo:.1f}: {_fmt(money, c)}"
                 for (a, b, *_), mo, c in zip(crossings, xs, ys, strict=True)]
        traces.append(dict(
            type="scatter", x=xs, y=ys, mode="markers", name=cross_t,
            marker=dict(symbol="x-thin-open", size=14, line=dict(width=3, color="#000000"), color="#000000"),
            hovertext=texts, hovertemplate="%{hovertext}<extra></extra>",
        ))
    last = int(m[-1]) if m.size else 0
    every = [np.asarray(c, dtype=float) * fx for c in curves.values()]
    return _figure(traces, _layout(
        _t(labels, "cumulative_title"), separators, plain=_cjk(labels),
        xaxis=dict(title=dict(text=_t(labels, "axis_month")), tick0=0, dtick=12, range=[0, max(last, 1)]),
        yaxis=dict(title=dict(text=_t(labels, "axis_cumulative_cost")),
                   **_money_axis(labels, money, np.concatenate(every) if every else [])),
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
    x = [base_x, *[_t(labels, c) for c in CATEGORIES], fabric_x]
    y = [base_total, *steps, 0.0]
    inc, dec, tot = _t(labels, "increase"), _t(labels, "decrease"), _t(labels, "total")
    text = [_fmt(money, base_total), *[("+" if s > 0 else "") + _fmt(money, s) for s in steps], _fmt(money, fab_total)]
    hover = [f"<b>{base_name}</b><br>{tot}: {text[0]}"]
    hover += [f"<b>{x[i + 1]}</b><br>{inc if s > 0 else dec}: {_fmt(money, s)}" for i, s in enumerate(steps)]
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
    yaxis = dict(title=dict(text=_t(labels, "axis_cost")))
    # Two large totals differing by a few percent: zoom onto the levels the steps pass through
    # (the total bars are cut at the bottom), else the steps would be invisible slivers.
    levels = np.append(np.cumsum(y[:-1]), fab_total)
    lo, hi = float(levels.min()), float(levels.max())
    span = hi - lo
    if lo > 0 and span > 0 and lo - 1.5 * span > 0.25 * lo:
        yaxis["range"] = [lo - 1.5 * span, hi + 0.4 * span]
        yaxis.update(_money_axis(labels, money, yaxis["range"]))
    else:
        yaxis.update(_money_axis(labels, money, [0.0, lo, hi, base_total, fab_total]))
    return _figure([trace], _layout(_t(labels, "waterfall_title"), separators, yaxis=yaxis, plain=_cjk(labels)))


def scale_chart(df: pd.DataFrame, metric: str, baseline: str, names: Mapping[str, str], families: Mapping[str, str],
                labels: Labels, money: Money, fx: float = 1.0, break_evens: Sequence[tuple] = (),
                regions: Sequence[tuple] = (), *, separators: str = ",.", log_y: bool | None = None,
                max_points: int = MAX_POINTS) -> go.Figure:
    """``metric`` per fabric against the node count (log x), break-evens and decision tiers marked.

    ``df`` is :func:`costmodel.sweep`'s table (columns ``nodes``, ``fabric``, ``family``,
    ``metric``, …). One line per fabric (in order of first appearance), named
    ``names[fid]``; the baseline's line is thicker. Traces are decimated to at most
    ``max_points`` node counts, always keeping the ends, the neighbourhood of each break-even
    and each node count where the cheapest fabric changes. Hover shows the value and its
    difference to ``baseline`` at that node count. ``break_evens`` is a list of
    ``(fid, nodes)``: a dotted vertical line in the fabric's colour (with the node count
    written at its foot when there are at most :data:`MAX_BREAK_EVEN_LABELS`) and, after the
    fabric lines, one marker trace ``labels["break_even"]`` with a point on the fabric's curve
    at each break-even (only when at least one lies within the data). ``regions`` is a list
    of ``(x0, x1, label)`` (optionally a 4th item, a family, to shade in its colour; else grey
    shades darkening to the right; ``None``/0/inf ends extend to the data) drawn as bands
    below the lines, label at the top. ``log_y`` defaults to log when every value is positive.

    Label keys: ``scale_title``, ``axis_nodes``, ``metric`` itself (y axis title, e.g.
    ``tco_total`` or ``cost_per_run``), ``nodes``, ``delta_vs_baseline``, ``break_even``.
    """
    wide = df.pivot_table(index="nodes", columns="fabric", values=metric, aggfunc="first", sort=True)
    first = df.drop_duplicates("fabric", keep="last")  # one row per fabric (its last family, as a dict keeps)
    fabrics = list(df["fabric"].drop_duplicates().to_numpy(dtype=object))  # in order of first appearance
    order = [f for f in fabrics if f in wide.columns]
    fam = ({**dict(zip(first["fabric"].to_numpy(dtype=object), first["family"].to_numpy(dtype=object),
                       strict=True)), **dict(families)} if "family" in df else families)
    x = wide.index.to_numpy(dtype=float)
    vals = wide[order].to_numpy(dtype=float) * fx
    vals[~np.isfinite(vals)] = np.nan
    full = vals.copy()
    keep = [float(n) for _, n in break_evens]
    with np.errstate(invalid="ignore"):
        finite_rows = np.isfinite(vals).any(axis=1)
        cheapest = np.where(finite_rows, np.argmin(np.where(np.isfinite(vals), vals, np.inf), axis=1), -1)
    change = np.flatnonzero(np.diff(cheapest) != 0)
    keep += [float(v) for v in x[change]] + [float(v) for v in x[change + 1]]
    idx = decimate_indices(x, max_points, keep)
    xs, vals = x[idx], vals[idx]
    base_col = vals[:, order.index(baseline)] if baseline in order else np.full(xs.size, np.nan)
    styles = fabric_styles(order, fam)
    nodes_t, delta_t = _t(labels, "nodes"), _t(labels, "delta_vs_baseline")
    traces, shapes, annotations = [], [], []
    at_nodes = [f"{nodes_t}: {_num(float(n), separators)}" for n in xs]  # the same for every fabric
    for j, fid in enumerate(order):
        name = names.get(fid, fid)
        y = vals[:, j]
        hover = [f"<b>{name}</b><br>{n}<br>{_fmt(money, v)}"
                 + ("" if fid == baseline else f"<br>{delta_t}: {_fmt(money, v - b)}")
                 for n, v, b in zip(at_nodes, y, base_col, strict=True)]
        st = styles[fid]
        traces.append(dict(
            type="scatter", x=xs, y=y, mode="lines", name=name, connectgaps=False,
            line=dict(color=st["color"], dash=st["dash"], width=3.5 if fid == baseline else 2),
            hovertext=hover, hovertemplate="%{hovertext}<extra></extra>",
        ))
    xmin, xmax = (float(x.min()), float(x.max())) if x.size else (1.0, 10.0)
    for i, reg in enumerate(regions):
        x0, x1, text = reg[0], reg[1], reg[2]
        x0 = xmin if x0 is None or not math.isfinite(x0) or x0 < xmin else float(x0)
        x1 = xmax if x1 is None or not math.isfinite(x1) or x1 > xmax else float(x1)
        if x1 <= x0:
            continue
        color = FAMILY_COLORS.get(reg[3], OTHER_COLOR) if len(reg) > 3 else REGION_FILL
        shapes.append(dict(type="rect", xref="x", yref="paper", x0=x0, x1=x1, y0=0, y1=1, fillcolor=color,
                           opacity=REGION_OPACITY[i % len(REGION_OPACITY)], line=dict(width=0), layer="below"))
        annotations.append(dict(x=(math.log10(x0) + math.log10(x1)) / 2, xref="x", y=1.0, yref="paper", text=text,
                                showarrow=False, yanchor="top", font=dict(size=11, color="#333333")))
    shown = [(fid, float(n)) for fid, n in break_evens
             if n is not None and math.isfinite(n) and xmin <= n <= xmax]
    be_t = _t(labels, "break_even")
    be_x, be_y, be_text = [], [], []
    for fid, n in shown:
        color = styles.get(fid, {"color": OTHER_COLOR})["color"]
        shapes.append(dict(type="line", xref="x", yref="paper", x0=n, x1=n, y0=0, y1=0.94,
                           line=dict(color=color, dash="dot", width=1.5)))
        if len(shown) <= MAX_BREAK_EVEN_LABELS:
            annotations.append(dict(x=math.log10(n), xref="x", y=0.0, yref="paper", text=_num(n, separators),
                                    showarrow=False, textangle=-90, xanchor="right", yanchor="bottom",
                                    font=dict(size=10, color=color)))
        y_at = (float(np.interp(math.log10(n), np.log10(x), full[:, order.index(fid)]))
                if fid in order else math.nan)
        be_x.append(n)
        be_y.append(y_at if math.isfinite(y_at) else None)
        be_text.append(f"<b>{be_t}</b>: {names.get(fid, fid)}<br>{nodes_t} ≈ {_num(n, separators)}"
                       f"<br>{_fmt(money, y_at)}")
    if shown:
        traces.append(dict(
            type="scatter", x=be_x, y=be_y, mode="markers", name=be_t,
            marker=dict(symbol="circle-open", size=11, color="#000000", line=dict(width=2)),
            hovertext=be_text, hovertemplate="%{hovertext}<extra></extra>",
        ))
    if log_y is None:
        finite = vals[np.isfinite(vals)]
        log_y = bool(finite.size) and bool((finite > 0).all())
    return _figure(traces, _layout(
        _t(labels, "scale_title"), separators, shapes=shapes, annotations=annotations, plain=_cjk(labels),
        xaxis=dict(type="log", title=dict(text=_t(labels, "axis_nodes")), range=[math.log10(xmin), math.log10(xmax)]),
        yaxis=dict(type="log" if log_y else "linear", title=dict(text=_t(labels, metric)),
                   **_money_axis(labels, money, vals, log=bool(log_y))),
    ))


def delta_curve_chart(values, deltas, roots: Sequence[float], current_value: float | None, labels: Labels,
                      money: Money, fx: float = 1.0, x_title: str = "", *, separators: str = ",.",
                      log_x: bool = False) -> go.Figure:
    """ΔTCO (fabric − baseline, model money) against one input, zero line, roots and current value.

    Traces: the curve (``labels["delta_curve"]``), the roots as markers on the zero line
    (``labels["root"]``, only when there are roots) and the current value as a diamond on the
    curve (``labels["current"]``, only when ``current_value`` is given; a dotted vertical line
    marks it too). ``x_title`` is the (translated) name of the input. Below zero the fabric
    saves money.

    Label keys: ``delta_title``, ``axis_delta``, ``delta_curve``, ``root``, ``current``.
    """
    xv = np.asarray(values, dtype=float)
    dv = np.asarray(deltas, dtype=float) * fx
    order = np.argsort(xv)
    xv, dv = xv[order], dv[order]
    roots = [float(r) for r in roots if r is not None and math.isfinite(r)]
    idx = decimate_indices(xv, MAX_POINTS, [*roots, current_value or math.nan], log=log_x)
    xv, dv = xv[idx], dv[idx]
    curve_t = _t(labels, "delta_curve")
    traces = [dict(
        type="scatter", x=xv, y=dv, mode="lines", name=curve_t, line=dict(color=DECREASE_COLOR, width=2.5),
        hovertext=[f"{x_title}: {_num(a, separators)}<br>{_t(labels, 'axis_delta')}: {_fmt(money, d)}"
                   for a, d in zip(xv, dv, strict=True)],
        hovertemplate="%{hovertext}<extra></extra>",
    )]
    # a horizontal line across the plot at ΔTCO = 0 (what fig.add_hline(y=0) draws)
    shapes = [dict(type="line", xref="x domain", x0=0, x1=1, yref="y", y0=0, y1=0,
                   line=dict(color="#333333", width=1))]
    if roots:
        traces.append(dict(
            type="scatter", x=roots, y=[0.0] * len(roots), mode="markers+text", name=_t(labels, "root"),
            marker=dict(symbol="circle-open", size=12, line=dict(width=2.5), color=INCREASE_COLOR),
            text=[_num(r, separators) for r in roots], textposition="top center",
            hovertext=[f"{_t(labels, 'root')}<br>{x_title}: {_num(r, separators)}" for r in roots],
            hovertemplate="%{hovertext}<extra></extra>",
        ))
    if current_value is not None and math.isfinite(current_value) and xv.size:
        cur_d = float(np.interp(current_value, xv, dv))
        traces.append(dict(
            type="scatter", x=[current_value], y=[cur_d], mode="markers", name=_t(labels, "current"),
            marker=dict(symbol="diamond", size=13, color="#000000"),
            hovertext=[f"<b>{_t(labels, 'current')}</b><br>{x_title}: {_num(current_value, separators)}<br>"
                       f"{_t(labels, 'axis_delta')}: {_fmt(money, cur_d)}"],
            hovertemplate="%{hovertext}<extra></extra>",
        ))
        # a vertical line over the plot's height (what fig.add_vline draws)
        shapes.append(dict(type="line", xref="x", x0=current_value, x1=current_value, yref="y domain", y0=0, y1=1,
                           line=dict(color="#000000", dash="dot", width=1)))
    return _figure(traces, _layout(
        _t(labels, "delta_title"), separators, shapes=shapes, plain=_cjk(labels),
        xaxis=dict(title=dict(text=x_title), type="log" if log_x else "linear"),
        yaxis=dict(title=dict(text=_t(labels, "axis_delta")), zeroline=False,
                   **_money_axis(labels, money, [0.0, *dv])),
    ))


def tornado_chart(df: pd.DataFrame, labels: Labels, money: Money, fx: float = 1.0, top: int = 12, *,
                  separators: str = ",.") -> go.Figure:
    """Tornado of ΔTCO: for each input, bars from the base ΔTCO to ΔTCO at its low and high end.

    ``df`` is :func:`costmodel.tornado`'s table. The ``top`` largest swings are shown,
    largest at the top. Two horizontal bar traces, ``labels["input_low"]`` and
    ``labels["input_high"]``, each with ``min(top, len(df))`` bars based at ``base_delta``;
    a line marks the base ΔTCO. A bar's name is ``labels.get(parameter, parameter)``, followed
    by `` · `` and ``labels.get(fabric_id, fabric_id)`` (its display name) for per-fabric
    quantities. Input values are shown in the model's own units (they are not converted).

    Label keys: ``tornado_title``, ``axis_delta``, ``input_low``, ``input_high``,
    ``base_delta``, and each parameter name (``nic_price``, ``pue``, …).
    """
    d = df.sort_values("swing", ascending=False, kind="stable").head(max(0, int(top)))
    fabric_col = d["fabric"] if "fabric" in d else pd.Series([None] * len(d), index=d.index)
    names = [_t(labels, p) + (f" · {_t(labels, f)}" if isinstance(f, str) and f else "")
             for p, f in zip(d["parameter"], fabric_col, strict=True)]
    base = float(d["base_delta"].iloc[0]) * fx if len(d) else 0.0
    delta_t = _t(labels, "axis_delta")
    traces = []
    for key, col, vcol, color in (("input_low", "delta_low", "low_value", LOW_COLOR),
                                  ("input_high", "delta_high", "high_value", HIGH_COLOR)):
        delta = d[col].to_numpy(dtype=float) * fx
        trace_t = _t(labels, key)
        traces.append(dict(
            type="bar", y=names, x=delta - base, base=[base] * len(d), orientation="h", name=trace_t,
            marker=dict(color=color),
            hovertext=[f"<b>{n}</b><br>{trace_t}: {_num(float(v), separators)}<br>{delta_t}: {_fmt(money, x)}"
                       for n, v, x in zip(names, d[vcol], delta, strict=True)],
            hovertemplate="%{hovertext}<extra></extra>",
        ))
    # the base ΔTCO: a vertical line over the plot's height (what fig.add_vline draws), labelled on top
    shapes = [dict(type="line", xref="x", x0=base, x1=base, yref="y domain", y0=0, y1=1,
                   line=dict(color="#333333", width=1.5))]
    annotations = [dict(x=base, y=1.0, yref="paper", text=f"{_t(labels, 'base_delta')}: {_fmt(money, base)}",
                        showarrow=False, yanchor="bottom", font=dict(size=11))]
    spread = [base, *(d["delta_low"].to_numpy(dtype=float) * fx), *(d["delta_high"].to_numpy(dtype=float) * fx)]
    return _figure(traces, _layout(
        _t(labels, "tornado_title"), separators, barmode="overlay", bargap=0.25, height=max(320, 90 + 26 * len(d)),
        shapes=shapes, annotations=annotations, plain=_cjk(labels),
        xaxis=dict(title=dict(text=_t(labels, "axis_delta")), **_money_axis(labels, money, spread)),
        yaxis=dict(autorange="reversed", categoryorder="array", categoryarray=names),
    ))


def mc_histogram(tco, fabric_ids: Sequence[str], names: Mapping[str, str], families: Mapping[str, str],
                 summary_df: pd.DataFrame, labels: Labels, money: Money, fx: float = 1.0, *, bins: int = 40,
                 separators: str = ",.") -> go.Figure:
    """Overlaid histograms of the Monte Carlo TCO per fabric, with P10 / P50 / P90 marked.

    ``tco`` is ``MonteCarloResult.tco`` ``(draws, F)``; ``summary_df`` is
    ``MonteCarloResult.summary()``. The draws are binned here (``bins`` common bins), so the
    figure stays small whatever the number of draws: one step-outline trace per fabric
    (share of draws per bin, ``bins + 1`` points at the bin edges, named ``names[fid]``),
    then one marker trace per fabric at its P10, P50 and P90 (named
    ``names[fid] + " P10/P50/P90"``, not in the legend) with vertical lines: solid at P50,
    dotted at P10 and P90.

    Label keys: ``mc_title``, ``axis_tco``, ``axis_share_of_draws``, ``p10``, ``p50``,
    ``p90``.
    """
    t = np.asarray(tco, dtype=float) * fx
    ids = list(fabric_ids)
    finite = t[np.isfinite(t)]
    edges = np.histogram_bin_edges(finite, bins=bins) if finite.size else np.linspace(0.0, 1.0, bins + 1)
    styles = fabric_styles(ids, families)
    summary = summary_df.set_index("fabric") if "fabric" in summary_df else summary_df
    share_t = _t(labels, "axis_share_of_draws")
    traces, shapes = [], []
    ymax = 0.0
    shares = {}
    for j, fid in enumerate(ids):
        col = t[:, j]
        counts, _ = np.histogram(col[np.isfinite(col)], bins=edges)
        shares[fid] = counts / max(1, col.size)
        ymax = max(ymax, float(shares[fid].max(initial=0.0)))
    for fid in ids:
        st, name = styles[fid], names.get(fid, fid)
        hover = [f"<b>{name}</b><br>{_fmt(money, a)} – {_fmt(money, b)}<br>{share_t}: {s:.1%}"
                 for a, b, s in zip(edges[:-1], edges[1:], shares[fid], strict=True)]
        traces.append(dict(  # step outline: overlaid fabrics stay readable
            type="scatter", x=edges, y=np.append(shares[fid], shares[fid][-1]), mode="lines", name=name,
            legendgroup=fid, line=dict(color=st["color"], dash=st["dash"], width=2, shape="hv"),
            fill="tozeroy", fillcolor=_rgba(st["color"], 0.08),
            hovertext=[*hover, hover[-1]], hovertemplate="%{hovertext}<extra></extra>",
        ))
    top = ymax * 1.06 or 1.0
    for fid in ids:
        if fid not in summary.index:
            continue
        st, name = styles[fid], names.get(fid, fid)
        ps = [("p10", "dot"), ("p50", "solid"), ("p90", "dot")]
        xs = [float(summary.loc[fid, p]) * fx for p, _ in ps]
        for x, (_, dash) in zip(xs, ps, strict=True):
            shapes.append(dict(type="line", x0=x, x1=x, y0=0, y1=top,
                               line=dict(color=st["color"], dash=dash, width=1.5)))
        traces.append(dict(
            type="scatter", x=xs, y=[top] * 3, mode="markers", name=f"{name} P10/P50/P90", legendgroup=fid,
            showlegend=False,
            marker=dict(symbol="triangle-down", size=9, color=st["color"]),
            hovertext=[f"<b>{name}</b><br>{_t(labels, p)}: {_fmt(money, x)}" for (p, _), x in zip(ps, xs, strict=True)],
            hovertemplate="%{hovertext}<extra></extra>",
        ))
    return _figure(traces, _layout(
        _t(labels, "mc_title"), separators, shapes=shapes, plain=_cjk(labels),
        xaxis=dict(title=dict(text=_t(labels, "axis_tco")), **_money_axis(labels, money, edges)),
        yaxis=dict(title=dict(text=share_t), tickformat=".0%", range=[0, top * 1.04]),
    ))


__all__ = [
    "CATEGORY_COLORS", "FAMILY_COLORS", "breakdown_bar", "cumulative_cost", "decimate_indices", "delta_curve_chart",
    "fabric_styles", "mc_histogram", "plotly_separators", "savings_waterfall", "scale_chart", "tornado_chart",
]
