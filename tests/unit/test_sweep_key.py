"""The Scale page caches a node-count sweep by the scenario without its node count: a sweep must
not depend on the scenario's own node count (bit for bit), and every other input must change the key."""

from __future__ import annotations

import pytest

import costmodel
from costmodel.scenario.presets import list_presets
from webui import compute


def _with(scenario: costmodel.Scenario, section: str, field: str, value) -> costmodel.Scenario:
    data = scenario.model_dump()
    data[section][field] = value
    return costmodel.Scenario.model_validate(data)


@pytest.mark.parametrize("preset", list_presets())
def test_a_sweep_is_the_same_whatever_the_scenarios_node_count(preset):
    scenario = costmodel.load_preset(preset)
    swept = costmodel.sweep(scenario, nodes=compute.SWEEP_NODES)
    lo = max(8, scenario.workload.pipeline_stages or 1)  # a node count the scenario accepts
    for nodes in (lo, 333, 4096):
        other = _with(scenario, "cluster", "nodes", nodes)
        assert compute.sweep_key(other) == compute.sweep_key(scenario)
        assert costmodel.sweep(other, nodes=compute.SWEEP_NODES).equals(swept), (preset, nodes)


def test_any_other_input_changes_the_sweep_key():
    scenario = costmodel.load_preset("seed-intro-32xA100")
    assert compute.sweep_key(_with(scenario, "facility", "pue", 1.31)) != compute.sweep_key(scenario)
    assert compute.sweep_key(_with(scenario, "cluster", "gpu", "h100")) != compute.sweep_key(scenario)
    assert compute.sweep_key(scenario) != compute.key(scenario)
