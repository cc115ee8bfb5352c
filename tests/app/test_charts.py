"""Charts and the monthly timeline, built from real model output, without Streamlit or a browser."""

from __future__ import annotations

import itertools
import math
import statistics
import subprocess
import sys
import time

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import scenarios

import costmodel
from costmodel.analysis.timeline import crossovers, monthly_cumulative, spread_monthly
from costmodel.pipeline.tco import CATEGORIES
from webui.charts import base
from webui.charts.base import FAMILY_COLORS
from webui.charts.costs import breakdown_bar, cumulative_cost, savings_waterfall
from webui.charts.risk import mc_histogram, tornado_chart
from webui.charts.scale import delta_curve_chart, scale_chart

PRESET = "seed-intro-32xA100"
FX = 7.25  # display units per model unit: every drawn amount must be model money × FX
LABELS = {c: f"«{c}»" for c in CATEGORIES} | {"crossover": "Crossover", "break_even": "Break-even"}


def money(v: float) -> str:
    """A formatter whose output is recognisable in hover texts."""
    return f"M[{v:.2f}]"


@pytest.fixture(scope="module")
def scenario():
    return costmodel.load_preset(PRESET)


@pytest.fixture(scope="module")
def result(scenario):
    return costmodel.evaluate(scenario)


@pytest.fixture(scope="module")
def names(result):
    return {f.id: f.name for f in result.fabrics}


@pytest.fixture(scope="module")
def families(result):
    return {f.id: f.family for f in result.fabrics}


@pytest.fixture(scope="module")
def swept(scenario):
    return costmodel.sweep(scenario, nodes=np.unique(np.geomspace(2, 16384, 200).astype(int)))


@pytest.fixture(scope="module")
def dense(scenario):
    """Every node count 2..16384: far more points than a trace may carry."""
    return costmodel.sweep(scenario, nodes=np.arange(2, 16385))


@pytest.fixture(scope="module")
def mc(scenario):
    return costmodel.monte_carlo(scenario, draws=2000, seed=1)


@pytest.fixture(scope="module")
def tornado_df(scenario):
    return costmodel.tornado(scenario)


def break_evens(df, baseline: str, metric: str = "tco_total") -> list[tuple[str, float]]:
    wide = df.pivot(index="nodes", columns="fabric", values=metric)
    out = []
    for fid in wide.columns:
        if fid != baseline:
            x = wide.index.to_numpy()
            out += [(fid, m) for m, _ in crossovers(x, wide[fid].to_numpy(), wide[baseline].to_numpy())]
    return out


def all_crossings(months, curves) -> list[tuple]:
    return [(a, b, m, c) for a, b in itertools.combinations(curves, 2)
            for m, c in crossovers(months, curves[a], curves[b])]


def hover_texts(fig: go.Figure) -> list[str]:
    return [h for t in fig.data for h in (t.hovertext or ())]


# ---------------------------------------------------------------------------- timeline


@pytest.mark.parametrize("preset", costmodel.list_presets())
def test_monthly_cumulative_ends_at_tco_and_starts_at_year_zero(preset):
    r = costmodel.evaluate(costmodel.load_preset(preset))
    months, curves = monthly_cumulative(r)
    assert months.tolist() == list(range(12 * r.horizon_years + 1))
    assert np.issubdtype(months.dtype, np.integer)
    assert set(curves) == {f.id for f in r.fabrics}
    for f in r.fabrics:
        c = curves[f.id]
        assert c.shape == months.shape
        assert c[-1] == f.tco_total  # exactly
        assert c[0] == f.yearly[0]["total"]
        year_ends = np.cumsum([y["total"] for y in f.yearly])
        np.testing.assert_allclose(c[::12], year_ends, rtol=1e-12)
        # Within a year the flow is spread evenly: equal monthly steps.
        steps = np.diff(c[1:13])
        np.testing.assert_allclose(steps, f.yearly[1]["total"] / 12, rtol=1e-9)


def test_monthly_cumulative_accepts_the_json_document(result):
    m1, c1 = monthly_cumulative(result)
    m2, c2 = monthly_cumulative(result.to_dict())
    assert m1.tolist() == m2.tolist()
    for fid in c1:
        assert c1[fid].tolist() == c2[fid].tolist()


def test_instalments_put_nothing_at_month_zero(scenario):
    data = scenario.model_dump()
    data["finance"] |= {"payment": "instalments", "instalment_months": 36, "residual_value_frac": 0.0}
    r = costmodel.evaluate(costmodel.scenario_from_dict(data))
    months, curves = monthly_cumulative(r)
    for f in r.fabrics:
        c = curves[f.id]
        assert c[0] == 0.0
        assert c[-1] == f.tco_total
        assert np.all(np.diff(c) >= 0)
        # Common start at 0 is not a crossover.
    for a, b in itertools.combinations(curves, 2):
        assert all(m > 0 for m, _ in crossovers(months, curves[a], curves[b]))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios(max_nodes=512))
def test_timeline_properties_on_any_scenario(sc):
    r = costmodel.evaluate(sc)
    _, curves = monthly_cumulative(r)
    for f in r.fabrics:
        c = curves[f.id]
        assert c[-1] == f.tco_total
        assert len(c) == 12 * r.horizon_years + 1
        if all(y["total"] >= 0 for y in f.yearly):
            assert np.all(np.diff(c) >= 0)


@given(st.lists(st.floats(0, 1e9, allow_nan=False), min_size=2, max_size=16))
def test_spread_is_monotone_and_exact_at_year_ends(year_ends):
    c = np.maximum.accumulate(np.array(year_ends))
    s = spread_monthly(c)
    assert s.size == 12 * (c.size - 1) + 1
    assert s[::12].tolist() == c.tolist()
    assert np.all(np.diff(s) >= 0)


def test_crossovers_interpolates_a_single_crossing():
    pts = crossovers([0, 12, 24], [100.0, 110.0, 120.0], [50.0, 80.0, 140.0])
    # a − b: 50, 30, −20 → zero at 12 + 12·30/50 = 19.2 months, a = 110 + 0.6·10.
    assert len(pts) == 1
    assert pts[0] == pytest.approx((19.2, 116.0))


def test_crossovers_counts_an_exact_zero_once_and_ignores_touches_and_common_starts():
    m = np.arange(6)
    assert crossovers(m, [1, 2, 3, 4, 5, 6], [2, 3, 3, 3, 3, 3]) == [(2.0, 3.0)]  # − 0 + …
    assert crossovers(m, [1, 2, 3, 4, 5, 6], [2, 2, 3, 4, 4, 4]) == [(1.0, 2.0)]  # − 0 0 0 + : the first zero
    assert crossovers(m, [0, 1, 2, 3, 4, 5], [0, 2, 3, 4, 5, 6]) == []  # equal at start only
    assert crossovers(m, [1, 2, 3, 4, 5, 6], [1, 1, 1, 1, 1, 6]) == []  # apart, equal at the end
    assert crossovers(m, [1, 2, 3, 4, 5, 6], [2, 2, 4, 5, 6, 7]) == []  # touch at month 1, stays below


def test_crossovers_finds_every_sign_change_both_ways():
    m = np.arange(5)
    a = np.array([0.0, 2.0, 0.0, 2.0, 0.0])
    b = np.ones(5)
    pts = crossovers(m, a, b)
    assert [p[0] for p in pts] == pytest.approx([0.5, 1.5, 2.5, 3.5])
    assert all(p[1] == pytest.approx(1.0) for p in pts)
    assert [p[0] for p in crossovers(m, b, a)] == pytest.approx([0.5, 1.5, 2.5, 3.5])


# ---------------------------------------------------------------------------- common look


def test_every_figure_has_the_common_layout(result, names, families, swept, mc, tornado_df):
    base, other = result.fabric(result.baseline), result.fabrics[-1]
    months, curves = monthly_cumulative(result)
    figs = [
        breakdown_bar(result.to_dict(), LABELS, money, FX),
        cumulative_cost(months, curves, [], names, families, LABELS, money, FX),
        savings_waterfall(base.breakdown, other.breakdown, base.name, other.name, LABELS, money, FX),
        scale_chart(swept, "tco_total", result.baseline, names, families, LABELS, money, FX),
        delta_curve_chart([1, 2, 3], [-1.0, 0.0, 1.0], [2.0], 2.5, LABELS, money, FX, "x"),
        tornado_chart(tornado_df, LABELS, money, FX),
        mc_histogram(mc.tco, mc.fabric_ids, names, families, mc.summary(), LABELS, money, FX),
    ]
    for fig in figs:
        assert isinstance(fig, go.Figure)
        assert fig.layout.template.layout.paper_bgcolor == "white"  # plotly_white
        assert fig.layout.legend.orientation == "h" and fig.layout.legend.yanchor == "top"  # under the plot
        assert fig.layout.separators == ".,"  # thousands ",", decimal "." (Plotly: decimal first)
        assert fig.layout.margin.l <= 20 and fig.layout.margin.r <= 20
        fig.to_json()  # serialisable


def test_separators_follow_the_locale_and_labels_fall_back_to_keys(result):
    fig = breakdown_bar(result.to_dict(), {}, money, 1.0, separators=".,")
    assert fig.layout.separators == ",."
    assert fig.layout.title.text == "breakdown_title"
    assert [t.name for t in fig.data] == list(CATEGORIES)
    with pytest.raises(ValueError, match="two characters"):
        breakdown_bar(result.to_dict(), {}, money, 1.0, separators=",")


def test_family_colours_are_consistent_across_charts(result, names, families, swept, mc):
    months, curves = monthly_cumulative(result)
    cum = cumulative_cost(months, curves, [], names, families, LABELS, money, FX)
    scale = scale_chart(swept, "tco_total", result.baseline, names, families, LABELS, money, FX)
    hist = mc_histogram(mc.tco, mc.fabric_ids, names, families, mc.summary(), LABELS, money, FX)
    for f in result.fabrics:
        colour = FAMILY_COLORS[f.family]
        for fig in (cum, scale, hist):
            assert next(t for t in fig.data if t.name == f.name).line.color == colour
    assert len(set(FAMILY_COLORS.values())) == 4


def test_builders_skip_plotly_validation_and_are_fast(result, names, families, swept, mc, tornado_df):
    """Every figure is built from plain dicts with ``_validate=False``: validation took 20–70 ms per figure."""
    base, other = result.fabric(result.baseline), result.fabrics[-1]
    months, curves = monthly_cumulative(result)
    doc, summary, be = result.to_dict(), mc.summary(), break_evens(swept, result.baseline)
    builders = {
        "breakdown_bar": lambda: breakdown_bar(doc, LABELS, money, FX),
        "cumulative_cost": lambda: cumulative_cost(months, curves, all_crossings(months, curves), names,
                                                   families, LABELS, money, FX),
        "savings_waterfall": lambda: savings_waterfall(base.breakdown, other.breakdown, base.name,
                                                       other.name, LABELS, money, FX),
        "scale_chart": lambda: scale_chart(swept, "tco_total", result.baseline, names, families, LABELS,
                                           money, FX, be, [(None, 8, "a"), (8, None, "b")]),
        "delta_curve_chart": lambda: delta_curve_chart([1, 2, 3], [-1.0, 0.0, 1.0], [2.0], 2.5, LABELS,
                                                       money, FX, "x"),
        "tornado_chart": lambda: tornado_chart(tornado_df, LABELS, money, FX),
        "mc_histogram": lambda: mc_histogram(mc.tco, mc.fabric_ids, names, families, summary, LABELS,
                                             money, FX),
    }
    for name, build in builders.items():
        fig = build()
        assert fig._validate is False, name
        assert fig.layout._validate is False and all(t._validate is False for t in fig.data), name
        times = []
        for _ in range(7):
            t0 = time.perf_counter()
            build()
            times.append(time.perf_counter() - t0)
        # A few ms each in practice; the bound only catches a return to validated building.
        assert statistics.median(times) < 0.250, (name, statistics.median(times))  # sanity only; bench measures


# ---------------------------------------------------------------------------- builders


def test_breakdown_bar_stacks_to_tco(result):
    labels = LABELS | {"tcp-100": "TCP 100G"}
    fig = breakdown_bar(result.to_dict(), labels, money, FX)
    assert len(fig.data) == len(CATEGORIES) == 8  # cooling capex since the facility model
    assert [t.name for t in fig.data] == [f"«{c}»" for c in CATEGORIES]
    assert fig.layout.barmode == "relative"
    x = list(fig.data[0].x)
    assert x == [labels.get(f.id, f.name) for f in result.fabrics]
    for i, f in enumerate(result.fabrics):
        stacked = sum(t.y[i] for t in fig.data)
        assert stacked == pytest.approx(f.tco_total * FX, rel=1e-12)
        for t, cat in zip(fig.data, CATEGORIES, strict=True):
            assert t.y[i] == pytest.approx(f.breakdown[cat] * FX)
    assert [a.text for a in fig.layout.annotations] == [money(f.tco_total * FX) for f in result.fabrics]
    hov = hover_texts(fig)
    assert len(hov) == len(CATEGORIES) * len(result.fabrics)
    assert money(result.fabrics[0].breakdown["energy"] * FX) in fig.data[CATEGORIES.index("energy")].hovertext[0]
    # A Result works as well as its JSON document.
    again = breakdown_bar(result, labels, money, FX)
    assert [list(t.y) for t in again.data] == [list(t.y) for t in fig.data]


def test_cumulative_cost_ends_at_tco_and_marks_real_crossovers(result, names, families):
    months, curves = monthly_cumulative(result)
    crossings = all_crossings(months, curves)
    fig = cumulative_cost(months, curves, crossings, names, families, LABELS, money, FX)
    lines = [t for t in fig.data if t.mode == "lines"]
    assert [t.name for t in lines] == [f.name for f in result.fabrics]
    for t, f in zip(lines, result.fabrics, strict=True):
        assert t.y[-1] == pytest.approx(f.tco_total * FX, rel=1e-12)
        assert t.y[0] == pytest.approx(f.yearly[0]["total"] * FX, rel=1e-12)
        assert list(t.x) == months.tolist()
        assert t.hovertext[-1].endswith(money(t.y[-1]))
    markers = [t for t in fig.data if t.name == "Crossover"]
    assert len(markers) == (1 if crossings else 0)
    if crossings:
        assert len(markers[0].x) == len(crossings)
        assert list(markers[0].y) == pytest.approx([c[3] * FX for c in crossings])
        assert not fig.layout.annotations  # the page lists crossings under the chart, not on it
    assert fig.layout.xaxis.dtick == 12


def test_cumulative_cost_marks_crossings_exactly_when_curves_cross():
    months = np.arange(25)
    cheap_start = 100 + 10.0 * months  # cheaper to buy, dearer to run
    dear_start = 160 + 5.0 * months  # crosses at month 12 (220)
    parallel = 300 + 10.0 * months
    names = {"a": "A", "b": "B", "c": "C"}
    fams = {"a": "roce", "b": "infiniband", "c": "tcp"}
    crossing = [("a", "b", m, c) for m, c in crossovers(months, cheap_start, dear_start)]
    assert crossing == [("a", "b", 12.0, 220.0)]
    fig = cumulative_cost(months, {"a": cheap_start, "b": dear_start}, crossing, names, fams, LABELS,
                          money, 2.0)
    (mark,) = [t for t in fig.data if t.name == "Crossover"]
    assert list(mark.x) == [12.0] and list(mark.y) == [440.0]
    assert money(440.0) in mark.hovertext[0]
    assert not fig.layout.annotations and "<b>A × B</b>" in mark.hovertext[0]

    none = [("a", "c", m, c) for m, c in crossovers(months, cheap_start, parallel)]
    assert none == []
    fig = cumulative_cost(months, {"a": cheap_start, "c": parallel}, none, names, fams, LABELS, money, 2.0)
    assert [t.name for t in fig.data] == ["A", "C"]
    assert not fig.layout.annotations


def test_savings_waterfall_walks_from_baseline_to_fabric(result):
    base = result.fabric(result.baseline)
    k = len(CATEGORIES)
    for fab in result.fabrics:
        fig = savings_waterfall(base.breakdown, fab.breakdown, base.name, fab.name, LABELS, money, FX)
        (wf,) = fig.data
        assert isinstance(wf, go.Waterfall)
        assert list(wf.measure) == ["absolute", *["relative"] * k, "total"]
        assert list(wf.x) == [base.name, *[f"«{c}»" for c in CATEGORIES], fab.name]
        y = np.array(wf.y, dtype=float)
        assert y[0] == pytest.approx(base.tco_total * FX, rel=1e-12)
        np.testing.assert_allclose(y[1:k + 1], [(fab.breakdown[c] - base.breakdown[c]) * FX for c in CATEGORIES],
                                   rtol=1e-9, atol=1e-6)
        assert y[0] + y[1:k + 1].sum() == pytest.approx(fab.tco_total * FX, rel=1e-12)
        assert y[k + 1] == 0  # Plotly sums the steps into the total bar
        assert wf.text[-1] == money(fab.tco_total * FX)
        assert wf.text[0] == money(base.tco_total * FX)
        assert money(fab.tco_total * FX) in wf.hovertext[-1]
        if fig.layout.yaxis.range is not None:  # zoomed: every level the steps reach stays visible
            levels = np.append(np.cumsum(y[:k + 1]), fab.tco_total * FX)
            lo, hi = fig.layout.yaxis.range
            assert lo < levels.min() and hi > levels.max()


def test_scale_chart_is_log_light_and_true_to_the_sweep(result, names, families, swept):
    be = break_evens(swept, result.baseline)
    regions = [(None, 8, "RoCE"), (8, 32, "InfiniBand preferred"), (32, math.inf, "InfiniBand only")]
    fig = scale_chart(swept, "tco_total", result.baseline, names, families, LABELS, money, FX, be, regions)
    assert fig.layout.xaxis.type == "log"
    assert fig.layout.xaxis.range == pytest.approx((math.log10(2), math.log10(16384)))
    fab_traces = fig.data[:-1] if be else fig.data
    assert [t.name for t in fab_traces] == [names[f] for f in dict.fromkeys(swept["fabric"])]
    if be:
        assert fig.data[-1].name == "Break-even" and len(fig.data[-1].x) == len(be)
    wide = swept.pivot(index="nodes", columns="fabric", values="tco_total")
    for t in fab_traces:
        fid = next(f for f, n in names.items() if n == t.name)
        assert len(t.x) <= 600
        assert len(t.x) == len(wide)  # 200 points: nothing dropped
        np.testing.assert_allclose(t.y, wide[fid].to_numpy() * FX, rtol=1e-12)
    baseline_trace = next(t for t in fab_traces if t.name == names[result.baseline])
    assert baseline_trace.line.width > fab_traces[-1].line.width
    # Hover: money and the difference to the baseline.
    other = fab_traces[-1]
    diff = other.y[0] - baseline_trace.y[0]
    assert money(diff) in other.hovertext[0] and money(other.y[0]) in other.hovertext[0]
    rects = [s for s in fig.layout.shapes if s.type == "rect"]
    assert [(r.x0, r.x1) for r in rects] == [(2.0, 8.0), (8.0, 32.0), (32.0, 16384.0)]
    vlines = [s for s in fig.layout.shapes if s.type == "line"]
    assert sorted(s.x0 for s in vlines) == pytest.approx(sorted(n for _, n in be))
    texts = [a.text for a in fig.layout.annotations]
    assert {"RoCE", "InfiniBand preferred", "InfiniBand only"} <= set(texts)


def test_scale_chart_decimates_dense_sweeps_but_keeps_break_evens(result, names, families, dense):
    be = break_evens(dense, result.baseline)
    assert be  # the preset has break-evens
    fig = scale_chart(dense, "cost_per_run", result.baseline, names, families, LABELS, money, FX, be)
    wide = dense.pivot(index="nodes", columns="fabric", values="cost_per_run")
    all_x = wide.index.to_numpy()
    fab_traces = [t for t in fig.data if t.name != "Break-even"]
    assert len(fab_traces) == len(wide.columns)
    for t in fab_traces:
        fid = next(f for f, n in names.items() if n == t.name)
        assert len(t.x) <= 600
        assert t.x[0] == all_x[0] and t.x[-1] == all_x[-1]
        assert np.all(np.diff(t.x) > 0)
        np.testing.assert_allclose(t.y, wide.loc[list(t.x), fid].to_numpy() * FX, rtol=1e-12)
    kept = set(fab_traces[0].x)
    for _, n in be:  # both node counts around each break-even are drawn
        j = np.searchsorted(all_x, n)
        assert all_x[j - 1] in kept and all_x[j] in kept
    assert fig.layout.yaxis.title.text == "cost_per_run"
    assert len(fig.to_json()) < 600_000


def test_delta_curve_chart_marks_roots_and_current_value(result, swept, scenario):
    fid = "ib-ndr-400"
    rows = swept[swept["fabric"] == fid]
    x = rows["nodes"].to_numpy(dtype=float)
    d = rows["delta_vs_baseline"].to_numpy()
    roots = [m for m, _ in crossovers(x, d, np.zeros_like(d))]
    current = float(scenario.cluster.nodes)
    fig = delta_curve_chart(x, d, roots, current, LABELS, money, FX, "Nodes", log_x=True)
    names_ = [t.name for t in fig.data]
    assert names_ == ["delta_curve", "root", "current"] if roots else ["delta_curve", "current"]
    curve = fig.data[0]
    np.testing.assert_allclose(curve.y, d * FX)
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis.title.text == "Nodes"
    if roots:
        assert list(fig.data[1].x) == pytest.approx(roots) and set(fig.data[1].y) == {0.0}
    cur = fig.data[-1]
    assert cur.x[0] == current
    assert cur.y[0] == pytest.approx(np.interp(current, x, d * FX))
    assert money(cur.y[0]) in cur.hovertext[0]
    zero = [s for s in fig.layout.shapes if s.y0 == 0 and s.y1 == 0]
    assert len(zero) == 1
    # No roots, no current value: just the curve.
    fig = delta_curve_chart(x, d, [], None, LABELS, money, FX, "Nodes")
    assert [t.name for t in fig.data] == ["delta_curve"]


def test_delta_curve_chart_is_decimated():
    x = np.linspace(0, 1, 20_000)
    fig = delta_curve_chart(x, x - 0.3, [0.3], 0.5, LABELS, money, 1.0, "share")
    assert len(fig.data[0].x) <= 600
    assert np.any(np.abs(np.array(fig.data[0].x) - 0.3) < 1e-4)


@pytest.mark.parametrize("top", [5, 12, 1000])
def test_tornado_chart_bars_around_base_delta(tornado_df, top):
    labels = LABELS | {"pue": "PUE", "nic_price": "NIC price"}
    fig = tornado_chart(tornado_df, labels, money, FX, top=top)
    n = min(top, len(tornado_df))
    assert [t.name for t in fig.data] == ["input_low", "input_high"]
    rows = tornado_df.sort_values("swing", ascending=False).head(n)
    base = tornado_df["base_delta"].iloc[0] * FX
    expected_y = [labels.get(p, p) + (f" · {f}" if isinstance(f, str) else "")
                  for p, f in zip(rows["parameter"], rows["fabric"], strict=True)]
    for t, col in zip(fig.data, ("delta_low", "delta_high"), strict=True):
        assert t.orientation == "h"
        assert len(t.y) == len(t.x) == n
        assert list(t.y) == expected_y
        np.testing.assert_allclose(np.array(t.x) + np.array(t.base), rows[col].to_numpy() * FX)
        np.testing.assert_allclose(t.base, base)
    assert len(set(fig.data[0].y)) == n  # per-fabric quantities are told apart by fabric id
    assert fig.layout.yaxis.autorange == "reversed"  # largest swing on top
    assert any(money(base) in (a.text or "") for a in fig.layout.annotations)
    assert money(rows["delta_low"].iloc[0] * FX) in fig.data[0].hovertext[0]
    if n >= 1 and "pue" in set(rows["parameter"]):
        assert any(y.startswith("PUE") for y in fig.data[0].y)


def test_mc_histogram_shares_and_percentiles(mc, names, families):
    summary = mc.summary()
    fig = mc_histogram(mc.tco, mc.fabric_ids, names, families, summary, LABELS, money, FX)
    ids = list(mc.fabric_ids)
    assert len(fig.data) == 2 * len(ids)
    assert [t.name for t in fig.data[: len(ids)]] == [names[f] for f in ids]
    assert [t.name for t in fig.data[len(ids):]] == [f"{names[f]} P10/P50/P90" for f in ids]
    edges = np.array(fig.data[0].x)
    assert edges.min() <= mc.tco.min() * FX and edges.max() >= mc.tco.max() * FX
    for t in fig.data[: len(ids)]:
        assert len(t.x) <= 600
        assert np.array(t.y[:-1]).sum() == pytest.approx(1.0)  # every draw falls in a bin
        assert list(t.x) == list(edges)  # common bins
    for fid, t in zip(ids, fig.data[len(ids):], strict=True):
        row = summary.set_index("fabric").loc[fid]
        assert list(t.x) == pytest.approx([row.p10 * FX, row.p50 * FX, row.p90 * FX])
        assert t.showlegend is False
        assert money(row.p50 * FX) in t.hovertext[1]
    assert len(fig.layout.shapes) == 3 * len(ids)
    assert any("M[" in h for h in hover_texts(fig))


def test_charts_and_timeline_stay_clear_of_streamlit(root):
    code = ("import sys, costmodel.analysis.timeline; bad = [m for m in sys.modules if m.split('.')[0] in "
            "('streamlit', 'plotly')]; import webui.charts.costs, webui.charts.scale, webui.charts.risk, "
            "webui.charts.bandwidth; "
            "print(bad, 'streamlit' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] False"


def test_chart_helpers_doctests():
    import doctest

    res = doctest.testmod(base, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 0 and res.failed == 0
