"""The Serving page's latency–throughput chart: per fabric, one instance's time per output token [ms]
against its output tokens/s per GPU over the decode batches that fit its memory, the fleet's operating
point, and the TPOT target as a dashed line.

Built like the figures of :mod:`webui.charts.base` (plain Plotly dicts, translated ``labels`` looked
up with a key fallback, short fabric labels in the legend and full names on hover, no Streamlit).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from webui.charts.base import Labels, fabric_styles, is_cjk, make_figure, make_layout, num, short_label, tr

MS_PER_S = 1000.0  # a unit conversion
SLA_COLOR = "#555555"


def latency_throughput(curve: Mapping[str, np.ndarray], points: Sequence[tuple[float, float]],
                       fabric_ids: Sequence[str], names: Mapping[str, str], families: Mapping[str, str],
                       tpot_target_s: float, labels: Labels, *, separators: str = ",.") -> go.Figure:
    """TPOT [ms] against output tokens/s per GPU [log axis, 1-2-5 ticks], one line per fabric.

    ``curve``: :func:`costmodel.serving.answers.latency_curve` (``batch`` ``(B,)``, ``tpot_s`` and
    ``tokens_per_s_per_gpu`` ``(F, B)``); ``points``: each fabric's operating point (tokens/s per GPU,
    TPOT [s]), NaN where it misses the targets. Label keys: ``serving_title``, ``serving_x``,
    ``serving_y``, ``serving_sla`` (with ``{ms}``), ``serving_point``, ``serving_batch`` (with ``{batch}``),
    ``short.<fabric id>``.
    """
    styles = fabric_styles(fabric_ids, families)
    traces: list[dict] = []
    batch = np.asarray(curve["batch"], dtype=float)
    for i, fid in enumerate(fabric_ids):
        x, y = np.asarray(curve["tokens_per_s_per_gpu"][i]), np.asarray(curve["tpot_s"][i]) * MS_PER_S
        ok = np.isfinite(x) & np.isfinite(y)
        style, short = styles[fid], short_label(labels, fid, names[fid])
        hover = [f"{names[fid]}<br>{tr(labels, 'serving_batch').format(batch=num(b, separators))}" for b in batch[ok]]
        traces.append({"type": "scatter", "mode": "lines", "name": short, "legendgroup": fid,
                       "x": x[ok].tolist(), "y": y[ok].tolist(), "text": hover,
                       "line": {"color": style["color"], "dash": style["dash"], "width": 2},
                       "hovertemplate": "%{text}<br>%{x:,.0f} · %{y:,.1f} ms<extra></extra>"})
        px, py = points[i]
        if math.isfinite(px) and math.isfinite(py):
            traces.append({"type": "scatter", "mode": "markers", "name": short, "legendgroup": fid,
                           "showlegend": False, "x": [px], "y": [py * MS_PER_S],
                           "marker": {"color": style["color"], "symbol": style["symbol"], "size": 11,
                                      "line": {"color": "white", "width": 1}},
                           "text": [f"{names[fid]}<br>{tr(labels, 'serving_point')}"],
                           "hovertemplate": "%{text}<br>%{x:,.0f} · %{y:,.1f} ms<extra></extra>"})
    target = tpot_target_s * MS_PER_S
    xs = [v for tr in traces for v in tr["x"]]
    top = max([target, *(v for tr in traces for v in tr["y"])]) if traces else target
    ticks = _ticks(min(xs), max(xs)) if xs else []
    shapes = [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": target, "y1": target,
               "line": {"color": SLA_COLOR, "dash": "dash", "width": 1.5}}]
    annotations = [{"xref": "paper", "x": 0.0, "xanchor": "left", "yref": "y", "y": target,
                    "yanchor": "bottom", "showarrow": False, "font": {"size": 11, "color": SLA_COLOR},
                    "text": tr(labels, "serving_sla").format(ms=num(target, separators))}]
    layout = make_layout(tr(labels, "serving_title"), separators, shapes=shapes, annotations=annotations,
                         plain=is_cjk(labels),
                         xaxis={"type": "log", "title": {"text": tr(labels, "serving_x")}, "tickvals": ticks,
                                "ticktext": [num(v, separators) for v in ticks]},
                         yaxis={"title": {"text": tr(labels, "serving_y")}, "range": [0.0, 1.12 * top]})
    return make_figure(traces, layout)


def _ticks(lo: float, hi: float) -> list[float]:
    """1-2-5 ticks of a log axis from ``lo`` to ``hi`` (positive).

    >>> _ticks(13.0, 420.0)
    [20.0, 50.0, 100.0, 200.0]
    """
    out = []
    for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        out += [m * 10.0 ** k for m in (1, 2, 5) if lo <= m * 10.0 ** k <= hi]
    return out


__all__ = ["latency_throughput"]
