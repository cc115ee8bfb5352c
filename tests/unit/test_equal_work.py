"""Equal work: each fabric's cluster sized in whole nodes to deliver the plan."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import scenarios

import costmodel
from costmodel.api import _built
from costmodel.money.ledger import TIME_CATEGORIES
from costmodel.pipeline.equal_work import CASH_CATEGORIES, node_grid, size_for_work
from costmodel.scenario.changes import with_change

PRESETS = costmodel.list_presets()


def _rerun(scenario, nodes: int) -> costmodel.Result:
    """The scenario on ``nodes`` nodes, the plan schedule, cluster scope: what equal work compares."""
    data = scenario.model_dump()
    data["cluster"]["nodes"] = int(nodes)
    data["scope"] = "cluster"
    data["workload"]["schedule"] = "plan"
    return costmodel.evaluate(costmodel.Scenario.model_validate(data))


def _delivers(f, target: float | None) -> bool:
    m = f.metrics
    return bool(f.fits_plan and m["fits_memory"] and (target is None or m["run_days"] <= target * (1 + 1e-12)))


@pytest.mark.parametrize("preset", PRESETS)
def test_each_fabric_gets_the_fewest_nodes_that_deliver_the_plan(preset):
    """At the nodes found the plan fits; one node fewer it does not (checked by separate evaluations)."""
    s = costmodel.load_preset(preset)
    ew = costmodel.evaluate(s).equal_work
    assert ew is not None and ew.feasible.any()
    for j, fid in enumerate(ew.fabric_ids):
        if not ew.feasible[j]:
            continue
        n = int(ew.nodes[j])
        at = _rerun(s, n).fabric(fid)
        assert _delivers(at, s.workload.target_run_days)
        cash = at.tco_total - sum(at.breakdown[c] for c in TIME_CATEGORIES)
        assert ew.cost[j] == pytest.approx(cash, rel=1e-9)
        assert ew.run_days[j] == pytest.approx(at.metrics["run_days"], rel=1e-12)
        assert ew.work_cost_per_run[j] == pytest.approx(cash / (s.workload.runs_per_year * s.finance.horizon_years))
        if n > 1:
            assert not _delivers(_rerun(s, n - 1).fabric(fid), s.workload.target_run_days), (fid, n)


def test_a_target_days_per_run_needs_more_nodes_and_is_met():
    s = with_change(costmodel.load_preset("seed-intro-32xA100"), "workload.target_run_days", None).scenario
    free = costmodel.evaluate(s).equal_work
    assert free.target_run_days is None and free.feasible.all()
    target = 20.0
    tight = costmodel.evaluate(with_change(s, "workload.target_run_days", target).scenario).equal_work
    assert tight.target_run_days == target
    assert np.all(tight.nodes[tight.feasible] >= free.nodes[tight.feasible])
    assert np.all(tight.run_days[tight.feasible] <= target)
    assert np.any(tight.nodes > free.nodes)


def test_the_breakdown_is_cash_and_adds_up_to_the_cost():
    ew = costmodel.evaluate(costmodel.load_preset("seed-case3-128xH100")).equal_work
    assert set(ew.breakdown) == set(CASH_CATEGORIES) and not set(ew.breakdown) & set(TIME_CATEGORIES)
    total = sum(ew.breakdown.values())
    np.testing.assert_allclose(total[ew.feasible], ew.cost[ew.feasible], rtol=1e-12)


def test_the_recommendation_ranks_by_the_cost_of_the_same_work():
    for preset in PRESETS:
        res = costmodel.evaluate(costmodel.load_preset(preset))
        ew = res.equal_work
        assert res.recommendation.metric == "work_cost"
        assert res.recommendation.cost_optimal == ew.fabric_ids[ew.cheapest]
        doc = res.to_dict()["equal_work"]
        for j, fid in enumerate(ew.fabric_ids):
            assert doc["fabrics"][fid]["nodes"] == (int(ew.nodes[j]) if ew.feasible[j] else None)


def test_a_plan_no_cluster_in_the_search_can_deliver_falls_back_to_the_fixed_cluster_ranking():
    s = with_change(costmodel.load_preset("seed-case1-8xA10"), "workload.target_run_days", 0.001).scenario
    res = costmodel.evaluate(s)
    assert not res.equal_work.feasible.any() and np.isnan(res.equal_work.cost).all()
    assert res.recommendation.metric in ("tco_total", "cost_per_run")
    assert all(v["nodes"] is None for v in res.to_dict()["equal_work"]["fabrics"].values())


def test_node_grid_is_dense_then_geometric_and_reaches_sixteen_times_the_nodes():
    g = node_grid(100)
    assert g[:64].tolist() == list(range(1, 65))
    assert g[-1] == 1600 and np.all(np.diff(g) > 0)
    assert np.all(g[65:] / g[64:-1] <= 1.05 + 1 / 64)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(s=scenarios(max_nodes=256), speedup=st.floats(1.0, 4.0))
def test_a_faster_fabric_no_dearer_per_node_never_costs_more_for_the_same_work(s, speedup):
    """Two copies of one fabric; the second carries more bandwidth at the same prices and power."""
    built = _built(s, None)
    p, stc = built.inputs, built.structure
    n_fab = len(stc.fabric_ids)
    # every per-fabric array (1, F) becomes two copies of the first fabric (a (1, 1) scalar copied is the same)
    two = {f.name: np.repeat(np.asarray(getattr(p, f.name))[:, :1], 2, axis=1) for f in dataclasses.fields(p)
           if np.ndim(getattr(p, f.name)) == 2 and np.shape(getattr(p, f.name)) == (1, n_fab)}
    two["port_bps"] = two["port_bps"] * np.array([[1.0, speedup]])
    p2 = p.replace(**two)
    st2 = dataclasses.replace(stc, fabric_ids=(stc.fabric_ids[0], stc.fabric_ids[0] + "-fast"),
                              families=(stc.families[0],) * 2, baseline_index=0,
                              measured=(None, None) if stc.measured else ())
    ew = size_for_work(p2, st2, s.workload.target_run_days)
    if ew.feasible[0]:
        assert ew.feasible[1]
        assert ew.nodes[1] <= ew.nodes[0]
        assert ew.cost[1] <= ew.cost[0] * (1 + 1e-9)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_workbook_has_the_equal_work_sheet_with_the_models_figures(tmp_path, lang):
    import openpyxl

    from costmodel.exports.workbook import labels, workbook_bytes

    s = costmodel.load_preset("seed-case3-128xH100")
    ew = costmodel.evaluate(s).equal_work
    path = tmp_path / "w.xlsx"
    path.write_bytes(workbook_bytes(s, lang=lang))
    ws = openpyxl.load_workbook(path)[labels(lang)["work"]["sheet"]]
    for j in range(len(ew.fabric_ids)):
        assert ws.cell(6 + j, 2).value == int(ew.nodes[j])
        assert ws.cell(6 + j, 3).value == pytest.approx(ew.cost[j], rel=1e-12)
        assert ws.cell(6 + j, 5).value == pytest.approx(ew.run_days[j], rel=1e-12)
    assert "★" in ws.cell(6 + ew.cheapest, 1).value


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_leads_with_the_equal_work_table(lang):
    from webui.i18n.translator import Translator
    from webui.reports.html import report_html

    s = costmodel.load_preset("seed-intro-32xA100")
    ew = costmodel.evaluate(s).equal_work
    doc = report_html(s, lang=lang)
    t = Translator(lang)
    i = doc.index(t("work.title").replace("'", "&#x27;"))
    assert i < doc.index(f">{t('pdf.charts')}</h2>")  # before the charts' heading (the contents name it first)
    table = doc[i:doc.index("</table>", i)]
    for n, ok in zip(ew.nodes, ew.feasible, strict=True):
        assert (f">{int(n)}<" in table) == bool(ok) or n == 0
    # a fabric that cannot keep its runs within the plan says so (the intro's TCP could not on the 32-port
    # 100G switches of 2016; on 12.8 T switches in breakout it can)
    assert (t("work.none", max=f"{ew.max_nodes:,}") in table) == (not all(ew.feasible))
