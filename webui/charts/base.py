"""What every chart shares: colours, money axes, layouts, lite figures and decimation (no Streamlit here).

The chart builders (:mod:`webui.charts.costs`, :mod:`~webui.charts.scale`, :mod:`~webui.charts.risk`,
:mod:`~webui.charts.bandwidth`) draw plain model output with the conventions below.

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
import plotly.graph_objects as go
import plotly.io as pio
from plotly.basedatatypes import BaseFigure

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
    "cooling_capex": "#332288",  # Tol "muted" indigo: "bright" has seven colours
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


def tr(labels: Labels | None, key: str) -> str:
    """The translated text of ``key``, or the key itself."""
    if labels is None:
        return key
    text = labels.get(key, key)
    return key if text is None else str(text)


def is_cjk(labels: Labels | None) -> bool:
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


def money_axis(labels: Labels | None, money: Money, values, log: bool = False) -> dict:
    """Axis settings of a money axis: Chinese ticks in 万 / 亿 (:func:`money_ticks`); nothing in English."""
    return money_ticks(values, money, log) if is_cjk(labels) else {}


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


def rgba(hex_color: str, alpha: float) -> str:
    """``#RRGGBB`` → ``rgba(r,g,b,alpha)``.

    >>> rgba("#0072B2", 0.5)
    'rgba(0,114,178,0.5)'
    """
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha:g})"


def finite_or_none(v) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None


def short_label(labels: Labels | None, fid: str, name: str) -> str:
    """A fabric's short label (``labels["short.<fid>"]``, :func:`webui.i18n.labels.chart_labels`), else ``name``."""
    text = labels.get(f"short.{fid}") if labels else None
    return name if text is None else str(text)


def amount(money: Money, v) -> str:
    """Money text of a display amount; an em dash when it is missing or infinite."""
    v = finite_or_none(v) if v is not None else None
    return "—" if v is None else money(v)


def num(x: float, separators: str = ",.") -> str:
    """A short plain number (inputs, node counts): 3 significant digits, locale separators.

    >>> num(1234.0), num(0.0456), num(12.5, ".,"), num(2e7)
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


def make_figure(traces: list[dict], layout: dict) -> go.Figure:
    """The figure of plain trace and layout dicts, without Plotly's (slow) property validation."""
    if _LITE.get():
        # the page's chart is drawn with Streamlit's theme, so the ~7 kB plotly_white template
        # would only be serialised and shipped on every rerun: send its few settings we rely on
        return LiteFigure({"data": traces, "layout": {**layout, "template": LITE_TEMPLATE}})
    return go.Figure(data=traces, layout=layout, _validate=False)


def make_layout(title: str | None, separators: str, *, xaxis: Mapping | None = None, yaxis: Mapping | None = None,
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
