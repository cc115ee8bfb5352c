"""The quick estimate's model side: the scenario its three answers make, the cluster a budget buys,
and the fabric each priority leads with."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.analysis import guided as analysis
from costmodel.catalog.loader import load_catalog
from costmodel.errors import InputError, ScenarioError
from costmodel.scenario import guided, locale_defaults
from costmodel.scenario.schema import Scenario
from costmodel.scenario.validation import field_bounds
from webui.session import share

CAT = load_catalog()
MODELS = list(guided.models())


def test_every_named_model_is_sourced_dated_and_named_in_both_languages():
    raw = yaml.safe_load(guided.DATA_FILE.read_text(encoding="utf-8"))
    assert [m["id"] for m in raw["models"]] == MODELS and len(MODELS) >= 4
    for m in guided.models().values():
        assert m.source in CAT.references and m.as_of and m.name and m.name_zh
        assert m.label("zh") == m.name_zh and m.label("en") == m.name
    assert any((m.workload.get("experts") or 0) > 1 for m in guided.models().values()), "a mixture of experts"


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("priority", guided.PRIORITIES)
def test_the_answers_become_a_scenario_with_the_models_fields(model, priority):
    base = locale_defaults.localize(Scenario(), "zh")
    s = guided.build(base, model, "h800", 12, priority)
    for k, v in guided.models()[model].workload.items():
        assert getattr(s.workload, k) == v, k
    assert s.workload.parallelism == guided.workload_choices()["parallelism"]
    assert (s.cluster.gpu, s.cluster.nodes, s.context.budget_tight) == ("h800", 12, priority == "cost")
    assert s.price_book == base.price_book == "cn-2025"  # the language's defaults stay
    assert s.facility == base.facility and s.finance == base.finance


def test_a_dense_model_after_a_mixture_of_experts_keeps_no_expert():
    moe = next(k for k, m in guided.models().items() if m.workload.get("experts"))
    dense = next(k for k, m in guided.models().items() if not m.workload.get("experts"))
    s = guided.build(guided.build(Scenario(), moe, "h100", 8, "time"), dense, "h100", 8, "time")
    assert s.workload.experts is None and s.workload.active_params_b is None
    assert s.workload == guided.build(Scenario(), dense, "h100", 8, "time").workload


def test_the_guides_scenario_travels_in_the_ordinary_share_link():
    s = guided.build(locale_defaults.localize(Scenario(), "zh"), MODELS[1], "h20", 5, "risk")
    assert share.decode(share.BLANK, share.encode(s, share.BLANK)) == s


def test_unknown_answers_are_refused_by_name():
    with pytest.raises(InputError, match="unknown model"):
        guided.build(Scenario(), "gpt-9", "h100", 8, "time")
    with pytest.raises(InputError, match="unknown priority"):
        guided.build(Scenario(), MODELS[0], "h100", 8, "speed")
    with pytest.raises(ScenarioError):
        guided.build(Scenario(), MODELS[0], "no-such-gpu", 8, "time")
    with pytest.raises(InputError):
        guided.nodes_for(0, 8)


@given(st.integers(1, 100_000), st.integers(1, 72))
def test_servers_hold_the_gpus_asked_for_and_no_spare_server(gpus, per):
    n = guided.nodes_for(gpus, per)
    assert n * per >= gpus > (n - 1) * per


def _cheapest(s: Scenario, nodes: int) -> float:
    return float(costmodel.sweep(s, [nodes])["tco_total"].min())


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(MODELS), st.sampled_from(["h100", "a100-80", "h20"]), st.floats(2e6, 5e9))
def test_the_budget_buys_the_largest_cluster_whose_cheapest_fabric_fits(model, gpu, budget):
    s = guided.build(Scenario(), model, gpu, 8, "cost")
    found = analysis.largest_within(s, budget)
    if found.nodes is None:
        assert _cheapest(s, 1) > budget and found.smallest_tco == pytest.approx(_cheapest(s, 1))
        return
    assert found.tco == pytest.approx(_cheapest(s, found.nodes)) and found.tco <= budget
    assert found.at_limit or _cheapest(s, found.nodes + 1) > budget


def test_a_budget_below_one_server_and_one_above_the_largest_cluster_say_so():
    s = guided.build(Scenario(), MODELS[0], "h100", 8, "cost")
    one = _cheapest(s, 1)
    assert analysis.largest_within(s, one * 0.99).nodes is None
    assert analysis.largest_within(s, one).nodes >= 1
    top = int(field_bounds("cluster.nodes")[1])
    huge = analysis.largest_within(s, _cheapest(s, top) * 1.01)
    assert huge.at_limit and huge.nodes == top
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(InputError):
            analysis.largest_within(s, bad)


def test_a_bigger_budget_never_buys_a_smaller_cluster():
    s = guided.build(Scenario(), MODELS[1], "h100", 8, "cost")
    budgets = np.geomspace(3e6, 3e9, 9)
    nodes = [analysis.largest_within(s, b).nodes for b in budgets]
    assert all(a <= b for a, b in itertools.pairwise(nodes)) and nodes[-1] > nodes[0]


@pytest.mark.parametrize("model", MODELS)
def test_each_priority_leads_with_the_fabric_best_at_it(model):
    res = costmodel.evaluate(guided.build(Scenario(), model, "h100", 16, "time"))
    fits = [f for f in res.fabrics if f.metrics["fits_memory"]] or list(res.fabrics)
    assert analysis.pick(res, "cost") == res.recommendation.cost_optimal
    fastest = analysis.pick(res, "time")
    assert res.fabric(fastest).metrics["run_days"] == min(f.metrics["run_days"] for f in fits)
    safest = analysis.pick(res, "risk")
    assert res.fabric(safest).metrics["lost_hours_per_year"] == min(f.metrics["lost_hours_per_year"] for f in fits)
    with pytest.raises(InputError):
        analysis.pick(res, "speed")


def test_faster_fabrics_lead_the_time_answer_on_a_communication_bound_model():
    """A 70 B model on 64 H100: InfiniBand's 400 Gb/s finishes a run sooner than 100 GbE TCP
    (the model's own run lengths; the answer differs from the cheapest when time matters)."""
    res = costmodel.evaluate(guided.build(Scenario(), "dense-70b", "h100", 8, "time"))
    days = {f.id: f.metrics["run_days"] for f in res.fabrics}
    assert analysis.pick(res, "time") == min(days, key=days.get)
    assert days["ib-ndr-400"] < days["tcp-100"]
