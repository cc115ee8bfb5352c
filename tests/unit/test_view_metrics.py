"""What the pages show comes from the model: crossings, break-even node counts, the value of a
cluster-hour, differences between two results, fabric names and currency rates — each computed
once in ``costmodel`` and checked here against an independent computation; and the pages hold
no second copy of that arithmetic."""

from __future__ import annotations

import ast
import itertools
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.analysis.crossings import NodeBreakEven, node_break_evens, sign_changes
from costmodel.analysis.timeline import Crossing, crossovers, cumulative, monthly_cumulative
from costmodel.catalog import currency, formatting
from costmodel.catalog.loader import load_catalog
from costmodel.evidence import claims
from costmodel.money.cluster_hour import default_value_of_cluster_hour
from costmodel.pipeline.results import differences
from costmodel.scenario.changes import with_change

PRESETS = costmodel.list_presets()
NODES = np.unique(np.geomspace(2, 16_384, 400).round().astype(int))


@pytest.fixture(scope="module")
def results() -> dict:
    return {p: costmodel.evaluate(costmodel.load_preset(p)) for p in PRESETS}


def _brute_sign_changes(d: list[float]) -> list[tuple[int, int]]:
    """Reference: walk the samples; remember the last finite nonzero one; a later finite nonzero
    sample of the other sign closes a change at the first finite sample after the remembered one."""
    out, last = [], None
    for k, v in enumerate(d):
        if not np.isfinite(v) or v == 0:
            continue
        if last is not None and np.sign(v) != np.sign(d[last]):
            after = next(j for j in range(last + 1, k + 1) if np.isfinite(d[j]))
            out.append((last, after))
        last = k
    return out


values = st.one_of(st.sampled_from([0.0, float("nan"), 1.0, -1.0]), st.floats(-1e6, 1e6))


@settings(max_examples=300, deadline=None)
@given(st.lists(values, max_size=30))
def test_sign_changes_match_a_sample_by_sample_walk(d):
    a, b = sign_changes(np.array(d, dtype=float))
    assert list(zip(a.tolist(), b.tolist(), strict=True)) == _brute_sign_changes(d)


@pytest.mark.parametrize("preset", PRESETS)
def test_each_crossing_lies_on_both_curves_between_two_months(preset, results):
    res = results[preset]
    cum = cumulative(res)
    months, curves = monthly_cumulative(res)
    assert np.array_equal(cum.months, months) and cum.curves.keys() == curves.keys()
    for c in cum.crossings:
        assert isinstance(c, Crossing) and c.a == res.baseline and c.b != res.baseline
        k = int(np.floor(c.month))
        assert 0 <= c.month <= months[-1]
        lo, hi = min(k, months[-1] - 1), min(k, months[-1] - 1) + 1
        for curve in (curves[c.a], curves[c.b]):  # the same cost on both lines, by linear interpolation
            on_line = np.interp(c.month, months[lo:hi + 1], curve[lo:hi + 1])
            assert on_line == pytest.approx(c.cost, rel=1e-9)
        d = curves[c.b] - curves[c.a]
        assert np.sign(d[lo]) != np.sign(d[hi]) or d[hi] == 0  # the order really swaps there
    expected = sum(len(crossovers(months, curves[res.baseline], curves[f.id])) for f in res.fabrics
                   if f.id != res.baseline)
    assert len(cum.crossings) == expected


def test_a_cumulative_view_of_a_result_finds_its_known_crossings(results):
    assert len(cumulative(results["seed-intro-32xA100"]).crossings) >= 1  # the chart marks something
    assert cumulative(results["seed-intro-32xA100"]).crossings == cumulative(
        results["seed-intro-32xA100"].to_dict()).crossings  # the JSON document gives the same view


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("metric", ["tco_total", "cost_per_run", "delta_vs_baseline"])
def test_break_even_node_counts_are_where_the_order_swaps(preset, metric):
    scenario = costmodel.load_preset(preset)
    swept = costmodel.sweep(scenario, nodes=NODES)
    found = node_break_evens(swept, scenario.baseline, metric)
    column = "tco_total" if metric == "delta_vs_baseline" else metric
    expected = []
    for fid, rows in swept.groupby("fabric", sort=True):
        if fid == scenario.baseline:
            continue
        mine = rows.set_index("nodes")[column]
        base = swept[swept.fabric == scenario.baseline].set_index("nodes")[column]
        cheaper = (mine < base).to_numpy()
        dearer = (mine > base).to_numpy()
        side, tie = None, None  # the side last seen; the first tie after it
        for i, (c, d) in enumerate(zip(cheaper, dearer, strict=True)):
            now = "c" if c else "d" if d else None
            if now is None:
                tie = i if tie is None else tie
                continue
            if side is not None and now != side:  # swapped: at the first tie, else here
                expected.append(NodeBreakEven(fid, int(mine.index[i if tie is None else tie])))
            side, tie = now, None
    assert found == expected
    assert all(isinstance(b.nodes, int) for b in found)


def test_break_evens_on_delta_are_those_on_tco():
    scenario = costmodel.load_preset("seed-case1-8xA10")
    swept = costmodel.sweep(scenario, nodes=NODES)
    assert node_break_evens(swept, scenario.baseline, "delta_vs_baseline") == node_break_evens(
        swept, scenario.baseline, "tco_total")
    assert node_break_evens(swept, scenario.baseline)  # this preset has some: the test is not vacuous


@pytest.mark.parametrize("preset", PRESETS)
def test_the_default_value_of_a_cluster_hour_is_the_one_the_model_uses(preset, results):
    scenario = costmodel.load_preset(preset)
    assert scenario.operations.value_of_cluster_hour is None
    used = results[preset].fabrics[0].metrics["value_of_cluster_hour"]
    assert default_value_of_cluster_hour(scenario) == pytest.approx(used, rel=1e-12)


def test_the_value_of_a_cluster_hour_follows_a_rental_override_and_a_stated_value():
    scenario = costmodel.load_preset("seed-case2-24xA100")
    gpu = scenario.cluster.gpu
    edited = with_change(scenario, "overrides.gpu_prices", {gpu: {"rental_per_gpu_hour": 3.0}}).scenario
    gpus = scenario.cluster.gpus_per_node or load_catalog().gpus[gpu].default_gpus_per_node.typical
    assert default_value_of_cluster_hour(edited) == pytest.approx(3.0 * scenario.cluster.nodes * gpus)
    assert costmodel.evaluate(edited).fabrics[0].metrics["value_of_cluster_hour"] == pytest.approx(
        default_value_of_cluster_hour(edited))
    stated = with_change(edited, "operations.value_of_cluster_hour", 1234.0).scenario
    assert costmodel.evaluate(stated).fabrics[0].metrics["value_of_cluster_hour"] == 1234.0
    # the placeholder still shows what the rental would give, and at the book it is given
    assert default_value_of_cluster_hour(stated) == default_value_of_cluster_hour(edited)
    book = load_catalog().price_book(scenario.price_book)
    plain = default_value_of_cluster_hour(scenario, book)
    assert plain == pytest.approx(book.gpus[gpu].rental_per_gpu_hour.typical * scenario.cluster.nodes * gpus)


def test_differences_between_two_results_per_fabric(results):
    a = results["seed-intro-32xA100"]
    b = costmodel.evaluate(with_change(costmodel.load_preset("seed-intro-32xA100"), "cluster.nodes", 64).scenario)
    table = differences(a, b)
    assert list(table.fabric) == [f.id for f in a.fabrics]
    for row, fa, fb in zip(table.itertuples(index=False), a.fabrics, b.fabrics, strict=True):
        assert (row.tco_a, row.tco_b, row.delta) == (fa.tco_total, fb.tco_total, fb.tco_total - fa.tco_total)
        assert (row.run_days_a, row.run_days_b) == (fa.metrics["run_days"], fb.metrics["run_days"])
    other = results["seed-case1-8xA10"]
    mixed = differences(a, other)
    only_b = [f.id for f in other.fabrics if f.id not in {g.id for g in a.fabrics}]
    assert list(mixed.fabric) == [f.id for f in a.fabrics] + only_b
    missing = mixed[~mixed.fabric.isin([f.id for f in other.fabrics])]
    assert missing.tco_b.isna().all() and missing.delta.isna().all()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_function_names_fabrics_for_display(lang, results):
    from webui.i18n.labels import fabric_names
    from webui.i18n.translator import Translator

    cat = load_catalog()
    names = formatting.fabric_names(lang)
    assert fabric_names(Translator(lang)) == names
    assert all(names[fid] == (f.name_zh if lang == "zh" else f.name) for fid, f in cat.fabrics.items())
    res = results["seed-intro-32xA100"]
    assert [formatting.fabric_name(f, lang) for f in res.fabrics] == [names[f.id] for f in res.fabrics]


def test_one_module_holds_the_reference_rates():
    from webui.i18n.money import default_rate

    fx = load_catalog().fx_per_usd
    for a, b in itertools.product(currency.CURRENCIES, repeat=2):
        assert currency.reference_rate(a, b) == fx[b].typical / fx[a].typical == default_rate(a, b)
    assert claims.to_cny(100.0, "USD") == pytest.approx(100.0 * fx["CNY"].typical / fx["USD"].typical)
    assert currency.shown_rate("USD", "EUR", 0.9) == ("EUR", 0.9)
    assert currency.shown_rate("USD", "USD", 0.9) == ("USD", 1.0)


def _sources(root, *parts):
    for part in parts:
        path = root / part
        yield from ([path] if path.is_file() else sorted(path.rglob("*.py")))


def test_the_reference_rate_is_looked_up_in_one_place(root):
    readers = [p.relative_to(root).as_posix() for p in _sources(root, "costmodel", "webui", "app_pages", "store",
                                                                "app.py")
               if "fx_per_usd" in p.read_text(encoding="utf-8")]
    # the loader and the one reader
    assert sorted(readers) == ["costmodel/catalog/currency.py", "costmodel/catalog/loader.py"]


#: What a page must not compute itself: each has one home in the model.
DUPLICATED = {
    "np.sign": "sign changes (costmodel.analysis.crossings)",
    "crossovers(": "crossings (costmodel.analysis.timeline.cumulative)",
    "monthly_cumulative(": "the cumulative view (costmodel.analysis.timeline.cumulative)",
    "pivot(": "break-even node counts (costmodel.analysis.crossings.node_break_evens)",
    "rental_per_gpu_hour": "the value of a cluster-hour (costmodel.money.cluster_hour)",
    "f.name_zh": "fabric names (costmodel.catalog.formatting.fabric_names)",
    '["name_zh"]': "fabric names (costmodel.catalog.formatting.fabric_names)",
    "fx_per_usd": "reference rates (costmodel.catalog.currency)",
    "* money.rate": "currency conversion (webui.i18n.money / costmodel.catalog.currency)",
    '"currency" in': "which units are money (costmodel.catalog.currency.is_money_unit)",
}


def test_pages_hold_none_of_the_models_arithmetic(root):
    for path in sorted((root / "app_pages").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for needle, home in DUPLICATED.items():
            assert needle not in text, f"{path.name} computes {home} itself"
        tree = ast.parse(text)
        assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)
                    and any(a.name == "numpy" for a in n.names)], f"{path.name} imports numpy"


def test_pages_read_results_as_typed_objects_not_dict_documents(root):
    """``webui.compute.evaluate`` returns a Result: a page indexing it like a dict would fail."""
    tree = ast.parse((root / "webui" / "compute.py").read_text(encoding="utf-8"))
    evaluate = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "evaluate")
    assert ast.unparse(evaluate.returns) == "Result"
    document = re.compile(r"""\b(res|f|rec|ra|rb|r_pub|r_book)\[["']|\["fabrics"\]|\.to_dict\(""")
    for path in sorted((root / "app_pages").glob("*.py")):
        found = document.search(path.read_text(encoding="utf-8"))
        assert found is None, f"{path.name} reads a result document ({found.group(0)})"


def test_a_frame_of_the_sweep_is_what_the_helper_reads():
    df = pd.DataFrame({"nodes": [2, 4, 2, 4], "fabric": ["a", "a", "b", "b"], "tco_total": [1.0, 3.0, 2.0, 2.0]})
    assert node_break_evens(df, "a") == [NodeBreakEven("b", 4)]
