"""The bandwidth-sensitivity chart of the Method page (efficiency against inter-node GB/s per GPU).

Built like the figures of :mod:`webui.charts.base` (plain Plotly dicts, translated ``labels`` looked up
with a key fallback, no Streamlit here) from :func:`costmodel.evidence.sensitivity.curve`,
:func:`~costmodel.evidence.sensitivity.markers` and :func:`~costmodel.evidence.sensitivity.calculon_inputs`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from costmodel.evidence.sensitivity import Curve, Marker
from webui.charts.base import Labels, fabric_styles, is_cjk, make_figure, make_layout, num, tr

MFU_COLOR = "#222222"
SHARE_COLOR = "#888888"
CALCULON_COLOR = "#0072B2"
KNEE_COLOR = "#D55E00"
TICKS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)  # bandwidth axis ticks [GB/s]


def _pct(x: float, separators: str) -> str:
    return f"{num(100.0 * x, separators)} %"


def bandwidth_chart(curve: Curve, markers: Sequence[Marker], calculon: Mapping, names: Mapping[str, str],
                    families: Mapping[str, str], labels: Labels, *, separators: str = ",.") -> go.Figure:
    """MFU and compute share [%] against achievable inter-node bandwidth per GPU [GB/s, log axis].

    Traces: the model's MFU (``mfu``) and compute share (``compute_share``) over the grid; one
    marker per fabric on its own evaluation (hover: line rate, achievable bandwidth, MFU);
    Calculon's curve as run by this project (``calculon_curve``; hover ``calculon_eff``) when
    ``calculon["curve"]`` holds values for this run. Lines: MFU at unlimited bandwidth (``unbounded``),
    the knee (``knee``), Calculon's A100 input (``calculon_input``). For a run without Calculon
    values a note says which run has them (``calculon_missing``).

    Label keys: ``chart_title``, ``axis_bw``, ``axis_eff``, ``mfu``, ``compute_share``,
    ``unbounded``, ``knee``, ``calculon_input``, ``calculon_curve``, ``calculon_eff``, ``calculon_missing``,
    ``line_rate``, ``achievable``.
    """
    x = [float(v) for v in curve.gbs_per_gpu]
    points = calculon.get("curve") or []
    traces = [*_curve_traces(curve, x, labels, separators), *_marker_traces(markers, names, families, labels,
                                                                            separators)]
    if points:  # Calculon run by this project on the same run (its total efficiency, its MFU analogue)
        traces.append(_calculon_trace(points, labels, separators))
    top = 100.0 * max(curve.unbounded_compute_share, curve.unbounded_mfu, *(mk.mfu for mk in markers))
    shapes, annotations = _guides(curve, calculon, bool(points), (x[0], x[-1]), labels, separators)
    lo, hi = x[0], x[-1]
    ticks = [v for v in TICKS if lo <= v <= hi]
    layout = make_layout(
        tr(labels, "chart_title"), separators, shapes=shapes, annotations=annotations, plain=is_cjk(labels),
        xaxis=dict(type="log", title=dict(text=tr(labels, "axis_bw")), range=[math.log10(lo), math.log10(hi)],
                   tickvals=ticks, ticktext=[num(v, separators) for v in ticks]),
        yaxis=dict(title=dict(text=tr(labels, "axis_eff")), range=[0.0, 1.12 * top], ticksuffix=" %"),
    )
    layout["margin"] = {**layout["margin"], "t": 84}  # room for the labels above the vertical lines
    return make_figure(traces, layout)


def _curve_traces(curve: Curve, x: list[float], labels: Labels, separators: str) -> list[dict]:
    """The model's MFU and compute share [%] over the bandwidth grid, one hover text per point."""
    bw_t, mfu_t, share_t = tr(labels, "axis_bw"), tr(labels, "mfu"), tr(labels, "compute_share")

    def hover(i: int) -> str:
        return (f"{bw_t}: {num(x[i], separators)}<br>{mfu_t}: {_pct(curve.mfu[i], separators)}<br>"
                f"{share_t}: {_pct(curve.compute_share[i], separators)}")

    return [
        dict(type="scatter", x=x, y=[100.0 * float(v) for v in curve.mfu], mode="lines", name=mfu_t,
             line=dict(color=MFU_COLOR, width=2.5), hovertext=[hover(i) for i in range(len(x))],
             hovertemplate="%{hovertext}<extra></extra>"),
        dict(type="scatter", x=x, y=[100.0 * float(v) for v in curve.compute_share], mode="lines", name=share_t,
             line=dict(color=SHARE_COLOR, width=2, dash="dash"), hovertext=[hover(i) for i in range(len(x))],
             hovertemplate="%{hovertext}<extra></extra>"),
    ]


def _marker_traces(markers: Sequence[Marker], names: Mapping[str, str], families: Mapping[str, str],
                   labels: Labels, separators: str) -> list[dict]:
    """One marker per fabric on its own evaluation (hover: line rate, achievable bandwidth, MFU, share)."""
    mfu_t, share_t = tr(labels, "mfu"), tr(labels, "compute_share")
    styles = fabric_styles([mk.fabric for mk in markers], families)
    traces = []
    for mk in markers:
        name = names.get(mk.fabric, mk.fabric)
        traces.append(dict(
            type="scatter", x=[mk.gbs_per_gpu], y=[100.0 * mk.mfu], mode="markers", name=name,
            marker=dict(size=12, color=styles[mk.fabric]["color"], symbol=styles[mk.fabric]["symbol"],
                        line=dict(color="#FFFFFF", width=1)),
            hovertext=[f"<b>{name}</b><br>{tr(labels, 'line_rate')}: {num(mk.line_gbs_per_gpu, separators)} GB/s<br>"
                       f"{tr(labels, 'achievable')}: {num(mk.gbs_per_gpu, separators)} GB/s<br>"
                       f"{mfu_t}: {_pct(mk.mfu, separators)}<br>{share_t}: {_pct(mk.compute_share, separators)}"],
            hovertemplate="%{hovertext}<extra></extra>",
        ))
    return traces


def _calculon_trace(points: Sequence, labels: Labels, separators: str) -> dict:
    """Calculon's curve as run by this project: (GB/s per GPU, total efficiency) points."""
    name, bw_t = tr(labels, "calculon_curve"), tr(labels, "axis_bw")
    return dict(
        type="scatter", x=[float(p[0]) for p in points], y=[100.0 * float(p[1]) for p in points],
        mode="lines+markers", name=name, line=dict(color=CALCULON_COLOR, width=2, dash="dot"),
        marker=dict(size=5, color=CALCULON_COLOR),
        hovertext=[f"<b>{name}</b><br>{bw_t}: {num(float(p[0]), separators)}<br>"
                   f"{tr(labels, 'calculon_eff')}: {_pct(float(p[1]), separators)}" for p in points],
        hovertemplate="%{hovertext}<extra></extra>",
    )


def _guides(curve: Curve, calculon: Mapping, has_curve: bool, span: tuple[float, float], labels: Labels,
            separators: str) -> tuple[list[dict], list[dict]]:
    """Lines and their labels: MFU at unlimited bandwidth, Calculon's input (within ``span``, GB/s), the
    knee; a note naming the run with Calculon values when this one has none."""
    shapes = [dict(type="line", xref="x domain", x0=0, x1=1, yref="y", y0=100.0 * curve.unbounded_mfu,
                   y1=100.0 * curve.unbounded_mfu, line=dict(color=MFU_COLOR, width=1, dash="dot"))]
    annotations = [dict(xref="x domain", x=1.0 if has_curve else 0.0, xanchor="right" if has_curve else "left",
                        yref="y", y=100.0 * curve.unbounded_mfu, yanchor="bottom",  # right: clear of Calculon's
                        showarrow=False, font=dict(size=11, color=MFU_COLOR),
                        text=f"{tr(labels, 'unbounded')}: {_pct(curve.unbounded_mfu, separators)}")]
    lo, hi = span
    cal_x = float(calculon.get("gbs_per_gpu", math.nan))
    if lo <= cal_x <= hi:
        shapes.append(dict(type="line", xref="x", x0=cal_x, x1=cal_x, yref="y domain", y0=0, y1=1,
                           line=dict(color=CALCULON_COLOR, width=1.5, dash="dash")))
        annotations.append(dict(xref="x", x=math.log10(cal_x), xanchor="left", yref="y domain", y=1.0,
                                yanchor="bottom", yshift=16, showarrow=False,  # a row above the knee's label
                                font=dict(size=11, color=CALCULON_COLOR), text=tr(labels, "calculon_input")))
    if math.isfinite(curve.knee_gbs):
        shapes.append(dict(type="line", xref="x", x0=curve.knee_gbs, x1=curve.knee_gbs, yref="y domain", y0=0,
                           y1=1, line=dict(color=KNEE_COLOR, width=1.5, dash="dot")))
        annotations.append(dict(xref="x", x=math.log10(curve.knee_gbs), xanchor="right", yref="y domain", y=1.0,
                                yanchor="bottom", showarrow=False,
                                font=dict(size=11, color=KNEE_COLOR),
                                text=f"{tr(labels, 'knee')}: {num(curve.knee_gbs, separators)} GB/s"))
    if not has_curve:
        annotations.append(dict(xref="paper", x=1.0, xanchor="right", yref="paper", y=0.0, yanchor="bottom",
                                showarrow=False, align="right", bgcolor="rgba(255,255,255,0.85)",
                                font=dict(size=11, color="#444444"), text=tr(labels, "calculon_missing")))
    return shapes, annotations
