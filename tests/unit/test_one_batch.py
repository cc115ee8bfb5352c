"""evaluate runs the scenario, its always-busy twin and the equal-work node grid in one batch
(costmodel.pipeline.tco.Modes): each part must equal what its own separate call gives."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import costmodel
from costmodel.api import _built
from costmodel.pipeline.equal_work import always_busy, size_for_work
from costmodel.pipeline.tco import Modes, compute

VARIANTS = {
    "as_is": {},
    "fabric_scope": {"scope": "fabric"},
    "always_busy": {"workload": {"schedule": "always_busy"}},
    "target_5_days_300_nodes": {"workload": {"target_run_days": 5.0}, "cluster": {"nodes": 300}},
}


def _variant(preset: str, change: dict) -> costmodel.Scenario:
    data = costmodel.load_preset(preset).model_dump()
    for section, values in change.items():
        if isinstance(values, dict):
            data[section].update(values)
        else:
            data[section] = values
    return costmodel.Scenario.model_validate(data)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("preset", ["seed-case2-24xA100", "seed-intro-32xA100"])
def test_the_batch_gives_what_separate_calls_give(preset, variant):
    s = _variant(preset, VARIANTS[variant])
    res = costmodel.evaluate(s)
    built = _built(s, None)
    alone = compute(built.inputs, built.structure)  # the scenario's row on its own
    np.testing.assert_allclose([f.tco_total for f in res.fabrics], alone.tco[0], rtol=1e-12)
    np.testing.assert_allclose([f.metrics["run_days"] for f in res.fabrics], alone.metrics["run_days"][0],
                               rtol=1e-12)
    work = size_for_work(built.inputs, built.structure, s.workload.target_run_days)  # its own two calls
    assert res.equal_work.nodes.tolist() == work.nodes.tolist()
    np.testing.assert_allclose(res.equal_work.cost, work.cost, rtol=1e-12)
    busy = always_busy(built.inputs, built.structure)  # its own call
    for j, f in enumerate(res.fabrics):
        for k, v in busy.items():
            assert f.always_busy[k] == pytest.approx(float(v[j]), rel=1e-12, nan_ok=True), (f.id, k)


def test_rows_of_a_mixed_batch_follow_their_own_schedule_and_scope():
    """One batch of four rows — plan/cluster, always-busy/cluster, plan/fabric, always-busy/fabric —
    equals four single-row calls under the matching structures."""
    built = _built(costmodel.load_preset("seed-case3-128xH100"), None)
    st = built.structure
    kinds = [("plan", "cluster"), ("always_busy", "cluster"), ("plan", "fabric"), ("always_busy", "fabric")]
    modes = Modes(always_busy=np.array([k == "always_busy" for k, _ in kinds])[:, None],
                  fabric_scope=np.array([sc == "fabric" for _, sc in kinds])[:, None])
    nodes = np.full((4, 1), float(np.asarray(built.inputs.nodes).ravel()[0]))
    batch = compute(built.inputs.replace(nodes=nodes), st, modes)
    for i, (kind, scope) in enumerate(kinds):
        one = compute(built.inputs, dataclasses.replace(st, schedule=kind, scope=scope))
        np.testing.assert_allclose(batch.tco[i], one.tco[0], rtol=1e-12)
        for c in one.breakdown:
            np.testing.assert_allclose(batch.breakdown[c][i], one.breakdown[c][0], rtol=1e-12, atol=1e-9)
        row = batch.rows(slice(i, i + 1))
        assert row.tco.shape == one.tco.shape and row.capex_schedule.shape == one.capex_schedule.shape
