"""Scale charts: a metric over node counts per fabric with break-evens and decision tiers, and ΔTCO
against one input with its roots (no Streamlit here; conventions in :mod:`webui.charts.base`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from webui.charts.base import (
    DECREASE_COLOR,
    FAMILY_COLORS,
    INCREASE_COLOR,
    MAX_BREAK_EVEN_LABELS,
    MAX_POINTS,
    OTHER_COLOR,
    REGION_FILL,
    REGION_OPACITY,
    Labels,
    Money,
    amount,
    decimate_indices,
    fabric_styles,
    is_cjk,
    make_figure,
    make_layout,
    money_axis,
    num,
    tr,
)


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
    order, fam, x, full = _wide(df, metric, families, fx)
    idx = decimate_indices(x, max_points, _kept_nodes(x, full, break_evens))
    xs, vals = x[idx], full[idx]
    styles = fabric_styles(order, fam)
    traces = _fabric_lines(xs, vals, order, baseline, names, styles, labels, money, separators)
    xmin, xmax = (float(x.min()), float(x.max())) if x.size else (1.0, 10.0)
    shapes, annotations = _tiers(regions, xmin, xmax)
    marks = _break_even_marks(break_evens, (xmin, xmax), x, full, order, names, styles, labels, money, separators)
    shapes += marks["shapes"]
    annotations += marks["annotations"]
    traces += marks["traces"]
    if log_y is None:
        finite = vals[np.isfinite(vals)]
        log_y = bool(finite.size) and bool((finite > 0).all())
    return make_figure(traces, make_layout(
        tr(labels, "scale_title"), separators, shapes=shapes, annotations=annotations, plain=is_cjk(labels),
        xaxis=dict(type="log", title=dict(text=tr(labels, "axis_nodes")), range=[math.log10(xmin), math.log10(xmax)]),
        yaxis=dict(type="log" if log_y else "linear", title=dict(text=tr(labels, metric)),
                   **money_axis(labels, money, vals, log=bool(log_y))),
    ))


def _wide(df: pd.DataFrame, metric: str, families: Mapping[str, str], fx: float):
    """The sweep as (fabric order, family per fabric, node counts, values × ``fx`` per node count and
    fabric, NaN where not finite)."""
    wide = df.pivot_table(index="nodes", columns="fabric", values=metric, aggfunc="first", sort=True)
    first = df.drop_duplicates("fabric", keep="last")  # one row per fabric (its last family, as a dict keeps)
    fabrics = list(df["fabric"].drop_duplicates().to_numpy(dtype=object))  # in order of first appearance
    order = [f for f in fabrics if f in wide.columns]
    fam = ({**dict(zip(first["fabric"].to_numpy(dtype=object), first["family"].to_numpy(dtype=object),
                       strict=True)), **dict(families)} if "family" in df else families)
    x = wide.index.to_numpy(dtype=float)
    vals = wide[order].to_numpy(dtype=float) * fx
    vals[~np.isfinite(vals)] = np.nan
    return order, fam, x, vals


def _kept_nodes(x: np.ndarray, vals: np.ndarray, break_evens: Sequence[tuple]) -> list[float]:
    """Node counts decimation keeps: each break-even and both sides of each change of the cheapest fabric."""
    keep = [float(n) for _, n in break_evens]
    with np.errstate(invalid="ignore"):
        finite_rows = np.isfinite(vals).any(axis=1)
        cheapest = np.where(finite_rows, np.argmin(np.where(np.isfinite(vals), vals, np.inf), axis=1), -1)
    change = np.flatnonzero(np.diff(cheapest) != 0)
    return keep + [float(v) for v in x[change]] + [float(v) for v in x[change + 1]]


def _fabric_lines(xs, vals, order: list, baseline: str, names: Mapping[str, str], styles: dict, labels: Labels,
                  money: Money, separators: str) -> list[dict]:
    """One line per fabric, the baseline's thicker; hover: the value and its difference to the baseline."""
    base_col = vals[:, order.index(baseline)] if baseline in order else np.full(xs.size, np.nan)
    nodes_t, delta_t = tr(labels, "nodes"), tr(labels, "delta_vs_baseline")
    at_nodes = [f"{nodes_t}: {num(float(n), separators)}" for n in xs]  # the same for every fabric
    traces = []
    for j, fid in enumerate(order):
        name = names.get(fid, fid)
        y = vals[:, j]
        hover = [f"<b>{name}</b><br>{n}<br>{amount(money, v)}"
                 + ("" if fid == baseline else f"<br>{delta_t}: {amount(money, v - b)}")
                 for n, v, b in zip(at_nodes, y, base_col, strict=True)]
        st = styles[fid]
        traces.append(dict(
            type="scatter", x=xs, y=y, mode="lines", name=name, connectgaps=False,
            line=dict(color=st["color"], dash=st["dash"], width=3.5 if fid == baseline else 2),
            hovertext=hover, hovertemplate="%{hovertext}<extra></extra>",
        ))
    return traces


def _tiers(regions: Sequence[tuple], xmin: float, xmax: float) -> tuple[list[dict], list[dict]]:
    """Decision tiers as bands below the lines (shapes) with their labels at the top (annotations)."""
    shapes, annotations = [], []
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
    return shapes, annotations


def _break_even_marks(break_evens: Sequence[tuple], span: tuple[float, float], x, full, order: list,
                      names: Mapping[str, str], styles: dict, labels: Labels, money: Money,
                      separators: str) -> dict[str, list[dict]]:
    """Break-evens within ``span`` (node counts): a dotted line each, its node count at the foot (up to
    :data:`MAX_BREAK_EVEN_LABELS`) and one marker trace with a point on each fabric's curve."""
    xmin, xmax = span
    shown = [(fid, float(n)) for fid, n in break_evens
             if n is not None and math.isfinite(n) and xmin <= n <= xmax]
    nodes_t, be_t = tr(labels, "nodes"), tr(labels, "break_even")
    out: dict[str, list[dict]] = {"shapes": [], "annotations": [], "traces": []}
    be_x, be_y, be_text = [], [], []
    for fid, n in shown:
        color = styles.get(fid, {"color": OTHER_COLOR})["color"]
        out["shapes"].append(dict(type="line", xref="x", yref="paper", x0=n, x1=n, y0=0, y1=0.94,
                                  line=dict(color=color, dash="dot", width=1.5)))
        if len(shown) <= MAX_BREAK_EVEN_LABELS:
            out["annotations"].append(dict(x=math.log10(n), xref="x", y=0.0, yref="paper", text=num(n, separators),
                                           showarrow=False, textangle=-90, xanchor="right", yanchor="bottom",
                                           font=dict(size=10, color=color)))
        y_at = (float(np.interp(math.log10(n), np.log10(x), full[:, order.index(fid)]))
                if fid in order else math.nan)
        be_x.append(n)
        be_y.append(y_at if math.isfinite(y_at) else None)
        be_text.append(f"<b>{be_t}</b>: {names.get(fid, fid)}<br>{nodes_t} ≈ {num(n, separators)}"
                       f"<br>{amount(money, y_at)}")
    if shown:
        out["traces"].append(dict(
            type="scatter", x=be_x, y=be_y, mode="markers", name=be_t,
            marker=dict(symbol="circle-open", size=11, color="#000000", line=dict(width=2)),
            hovertext=be_text, hovertemplate="%{hovertext}<extra></extra>",
        ))
    return out


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
    curve_t = tr(labels, "delta_curve")
    traces = [dict(
        type="scatter", x=xv, y=dv, mode="lines", name=curve_t, line=dict(color=DECREASE_COLOR, width=2.5),
        hovertext=[f"{x_title}: {num(a, separators)}<br>{tr(labels, 'axis_delta')}: {amount(money, d)}"
                   for a, d in zip(xv, dv, strict=True)],
        hovertemplate="%{hovertext}<extra></extra>",
    )]
    # a horizontal line across the plot at ΔTCO = 0 (what fig.add_hline(y=0) draws)
    shapes = [dict(type="line", xref="x domain", x0=0, x1=1, yref="y", y0=0, y1=0,
                   line=dict(color="#333333", width=1))]
    if roots:
        traces.append(dict(
            type="scatter", x=roots, y=[0.0] * len(roots), mode="markers+text", name=tr(labels, "root"),
            marker=dict(symbol="circle-open", size=12, line=dict(width=2.5), color=INCREASE_COLOR),
            text=[num(r, separators) for r in roots], textposition="top center",
            hovertext=[f"{tr(labels, 'root')}<br>{x_title}: {num(r, separators)}" for r in roots],
            hovertemplate="%{hovertext}<extra></extra>",
        ))
    if current_value is not None and math.isfinite(current_value) and xv.size:
        cur_d = float(np.interp(current_value, xv, dv))
        traces.append(dict(
            type="scatter", x=[current_value], y=[cur_d], mode="markers", name=tr(labels, "current"),
            marker=dict(symbol="diamond", size=13, color="#000000"),
            hovertext=[f"<b>{tr(labels, 'current')}</b><br>{x_title}: {num(current_value, separators)}<br>"
                       f"{tr(labels, 'axis_delta')}: {amount(money, cur_d)}"],
            hovertemplate="%{hovertext}<extra></extra>",
        ))
        # a vertical line over the plot's height (what fig.add_vline draws)
        shapes.append(dict(type="line", xref="x", x0=current_value, x1=current_value, yref="y domain", y0=0, y1=1,
                           line=dict(color="#000000", dash="dot", width=1)))
    return make_figure(traces, make_layout(
        tr(labels, "delta_title"), separators, shapes=shapes, plain=is_cjk(labels),
        xaxis=dict(title=dict(text=x_title), type="log" if log_x else "linear"),
        yaxis=dict(title=dict(text=tr(labels, "axis_delta")), zeroline=False,
                   **money_axis(labels, money, [0.0, *dv])),
    ))
