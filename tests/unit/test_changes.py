"""``Scenario.with_change``: one field changed, what it made inconsistent repaired, the rest
refused with a message naming the field — the model's rule, tested without Streamlit."""

from __future__ import annotations

import subprocess
import sys

import pytest

import costmodel
from costmodel.errors import ScenarioError
from costmodel.scenario.changes import Change, repair, with_change

PRESET = "seed-intro-32xA100"


@pytest.fixture(scope="module")
def intro() -> costmodel.Scenario:
    return costmodel.load_preset(PRESET)


def test_a_change_sets_the_field_and_leaves_the_original_alone(intro):
    done = with_change(intro, "cluster.nodes", 48)
    assert isinstance(done, Change)
    assert done.scenario.cluster.nodes == 48 and done.repaired == ()
    assert intro.cluster.nodes != 48  # the scenario is immutable: a new one is returned
    expect = intro.model_dump(mode="json")
    expect["cluster"]["nodes"] = 48
    assert done.scenario.model_dump(mode="json") == expect  # nothing else moved


def test_removing_the_baseline_makes_the_first_fabric_the_baseline(intro):
    others = [f for f in intro.fabrics if f != intro.baseline]
    done = with_change(intro, "fabrics", others)
    assert done.repaired == ("baseline",)
    assert done.scenario.baseline == others[0] and done.scenario.fabrics == others


def test_instalments_beyond_a_shortened_horizon_are_cut_to_it(intro):
    long = with_change(intro, "finance.payment", "instalments").scenario
    long = with_change(long, "finance.instalment_months", 60).scenario
    done = with_change(long, "finance.horizon_years", 2)
    assert done.repaired == ("finance.instalment_months",)
    assert done.scenario.finance.instalment_months == 24 and done.scenario.finance.horizon_years == 2


def test_pipeline_stages_beyond_the_node_count_are_cut_to_it(intro):
    piped = with_change(intro, "workload.parallelism", "pipeline").scenario
    piped = with_change(piped, "workload.pipeline_stages", 16).scenario
    done = with_change(piped, "cluster.nodes", 4)
    assert done.repaired == ("workload.pipeline_stages",)
    assert done.scenario.workload.pipeline_stages == 4


def test_several_repairs_are_reported_together():
    doc = {"fabrics": ["b"], "baseline": "a", "cluster": {"nodes": 2},
           "finance": {"payment": "instalments", "instalment_months": 40, "horizon_years": 3},
           "workload": {"parallelism": "pipeline", "pipeline_stages": 8}}
    assert repair(doc) == ["baseline", "finance.instalment_months", "workload.pipeline_stages"]
    assert (doc["baseline"], doc["finance"]["instalment_months"], doc["workload"]["pipeline_stages"]) == ("b", 36, 2)


def test_an_invalid_change_is_refused_naming_the_field_and_its_range(intro):
    with pytest.raises(ScenarioError) as err:
        with_change(intro, "cluster.nodes", 0)
    assert "cluster.nodes" in str(err.value)
    with pytest.raises(ScenarioError) as err:  # not repairable: refused, not adjusted
        with_change(intro, "facility.gpu_idle_power_frac", 0.95)
    assert "gpu_idle_power_frac" in str(err.value)


def test_an_unknown_field_is_an_error(intro):
    with pytest.raises(KeyError):
        with_change(intro, "cluster.no_such_field", 1)
    with pytest.raises(KeyError):
        with_change(intro, "nowhere.nodes", 1)


def test_a_table_of_overrides_is_one_change(intro):
    done = with_change(intro, "overrides.fabric_prices", {"ib-ndr-400": {"switch_price": 1000.0}})
    assert done.scenario.overrides.fabric_prices == {"ib-ndr-400": {"switch_price": 1000.0}}
    assert with_change(done.scenario, "overrides", {}).scenario.overrides.is_empty()


def test_the_rule_lives_in_the_model_and_needs_no_streamlit(root):
    code = ("import sys, costmodel; from costmodel.scenario.changes import with_change; "
            "s = costmodel.load_preset('seed-intro-32xA100'); "
            "with_change(s, 'fabrics', s.fabrics[1:]); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'webui')))")
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    widgets = (root / "webui" / "inputs" / "widgets.py").read_text(encoding="utf-8")
    assert "def _repair" not in widgets and "instalment_months" not in widgets  # no second copy of the rule
