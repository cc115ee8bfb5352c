"""Risk charts: the tornado of ΔTCO per input and the Monte Carlo histogram of TCO per fabric (no
Streamlit here; conventions in :mod:`webui.charts.base`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from webui.charts.base import (
    HIGH_COLOR,
    LOW_COLOR,
    Labels,
    Money,
    amount,
    fabric_styles,
    is_cjk,
    make_figure,
    make_layout,
    money_axis,
    num,
    rgba,
    tr,
)


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
    ``base_delta``, and each parameter name (``nic_price``, ``switch_price``, …).
    """
    d = df.sort_values("swing", ascending=False, kind="stable").head(max(0, int(top)))
    fabric_col = d["fabric"] if "fabric" in d else pd.Series([None] * len(d), index=d.index)
    names = [tr(labels, p) + (f" · {tr(labels, f)}" if isinstance(f, str) and f else "")
             for p, f in zip(d["parameter"], fabric_col, strict=True)]
    base = float(d["base_delta"].iloc[0]) * fx if len(d) else 0.0
    delta_t = tr(labels, "axis_delta")
    traces = []
    for key, col, vcol, color in (("input_low", "delta_low", "low_value", LOW_COLOR),
                                  ("input_high", "delta_high", "high_value", HIGH_COLOR)):
        delta = d[col].to_numpy(dtype=float) * fx
        trace_t = tr(labels, key)
        traces.append(dict(
            type="bar", y=names, x=delta - base, base=[base] * len(d), orientation="h", name=trace_t,
            marker=dict(color=color),
            hovertext=[f"<b>{n}</b><br>{trace_t}: {num(float(v), separators)}<br>{delta_t}: {amount(money, x)}"
                       for n, v, x in zip(names, d[vcol], delta, strict=True)],
            hovertemplate="%{hovertext}<extra></extra>",
        ))
    # the base ΔTCO: a vertical line over the plot's height (what fig.add_vline draws), labelled on top
    shapes = [dict(type="line", xref="x", x0=base, x1=base, yref="y domain", y0=0, y1=1,
                   line=dict(color="#333333", width=1.5))]
    annotations = [dict(x=base, y=1.0, yref="paper", text=f"{tr(labels, 'base_delta')}: {amount(money, base)}",
                        showarrow=False, yanchor="bottom", font=dict(size=11))]
    spread = [base, *(d["delta_low"].to_numpy(dtype=float) * fx), *(d["delta_high"].to_numpy(dtype=float) * fx)]
    return make_figure(traces, make_layout(
        tr(labels, "tornado_title"), separators, barmode="overlay", bargap=0.25, height=max(320, 90 + 26 * len(d)),
        shapes=shapes, annotations=annotations, plain=is_cjk(labels),
        xaxis=dict(title=dict(text=tr(labels, "axis_delta")), **money_axis(labels, money, spread)),
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
    share_t = tr(labels, "axis_share_of_draws")
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
        hover = [f"<b>{name}</b><br>{amount(money, a)} – {amount(money, b)}<br>{share_t}: {s:.1%}"
                 for a, b, s in zip(edges[:-1], edges[1:], shares[fid], strict=True)]
        traces.append(dict(  # step outline: overlaid fabrics stay readable
            type="scatter", x=edges, y=np.append(shares[fid], shares[fid][-1]), mode="lines", name=name,
            legendgroup=fid, line=dict(color=st["color"], dash=st["dash"], width=2, shape="hv"),
            fill="tozeroy", fillcolor=rgba(st["color"], 0.08),
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
            hovertext=[f"<b>{name}</b><br>{tr(labels, p)}: {amount(money, x)}"
                       for (p, _), x in zip(ps, xs, strict=True)],
            hovertemplate="%{hovertext}<extra></extra>",
        ))
    return make_figure(traces, make_layout(
        tr(labels, "mc_title"), separators, shapes=shapes, plain=is_cjk(labels),
        xaxis=dict(title=dict(text=tr(labels, "axis_tco")), **money_axis(labels, money, edges)),
        yaxis=dict(title=dict(text=share_t), tickformat=".0%", range=[0, top * 1.04]),
    ))
