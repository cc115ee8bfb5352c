"""The staged model: inputs broadcast once, pure stages returning frozen dataclasses of arrays,
one code path for a scenario, a sweep and a Monte Carlo batch."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import costmodel
from costmodel.pipeline import tco
from costmodel.pipeline.inputs import build
from costmodel.pipeline.stages import batch, cash_flows, cost_rates, metrics, reliability, schedule, step_time, topology

ROOT = Path(__file__).resolve().parents[2]
STAGES = [
    (topology, "topology"), (step_time, "step_time"), (reliability, "reliability"), (schedule, "schedule"),
    (cost_rates, "cost_rates"), (cash_flows, "cash_flows"), (metrics, "metrics"),
]
MAX_PIPELINE_LINES = 30


def _run_stages(p, st):
    p = batch.broadcast_inputs(p)
    topo = topology.topology(p)
    step = step_time.step_time(p, topo)
    rel = reliability.reliability(p, topo)
    sched = schedule.schedule(p, step, rel, st.schedule)
    rates = cost_rates.cost_rates(p, topo, step, rel, sched, st.scope, st.horizon_years)
    flows = cash_flows.cash_flows(p, rates.amounts, st.horizon_years, st.payment)
    figures = metrics.metrics(p, topo, step, rel, sched, rates, flows, st.horizon_years)
    return [topo, step, rel, sched, rates, flows, figures]


def _mixed_batch():
    """Rows that vary prices and the discount rate only (S, 1), a fabric's NIC price per row (S, F);
    nodes stay (1, 1). (Before the stages, a batch varying only the discount rate lost its rows.)"""
    built = build(costmodel.load_preset("seed-intro-32xA100"))
    p = built.inputs
    s = 5
    nic = np.repeat(p.nic_price, s, axis=0) * np.linspace(0.5, 2.0, s)[:, None]
    return built, p.replace(electricity_price=np.linspace(0.02, 0.4, s).reshape(-1, 1), nic_price=nic,
                            discount_rate=np.linspace(0.0, 0.2, s).reshape(-1, 1)), s


def test_every_stage_returns_a_frozen_dataclass_of_batch_shaped_arrays():
    built, p, s = _mixed_batch()
    f = len(built.structure.fabric_ids)
    for result in _run_stages(p, built.structure):
        assert dataclasses.is_dataclass(result) and type(result).__dataclass_params__.frozen
        first = dataclasses.fields(result)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(result, first, None)
        for fld in dataclasses.fields(result):
            value = getattr(result, fld.name)
            arrays = value.values() if hasattr(value, "values") else [value]
            for a in arrays:
                if isinstance(a, np.ndarray) and a.ndim == 2:
                    assert a.shape == (s, f), (type(result).__name__, fld.name)


def test_a_batch_that_varies_only_money_inputs_needs_no_padding_and_equals_single_rows_bitwise():
    """The caller passes just the varied inputs; each row equals that row computed alone."""
    built, p, s = _mixed_batch()
    out = tco.compute(p, built.structure)
    assert out.tco.shape == out.pv_cost.shape == (s, len(built.structure.fabric_ids))
    for key, arr in out.metrics.items():
        assert arr.shape == out.tco.shape, key
    for i in range(s):
        one = tco.compute(p.replace(electricity_price=p.electricity_price[i:i + 1], nic_price=p.nic_price[i:i + 1],
                                    discount_rate=p.discount_rate[i:i + 1]), built.structure)
        assert np.array_equal(one.tco[0], out.tco[i])
        assert np.array_equal(one.pv_cost[0], out.pv_cost[i])
        for key in out.metrics:
            assert np.array_equal(one.metrics[key][0], out.metrics[key][i], equal_nan=True), key
        for cat, y in out.yearly().items():
            assert np.array_equal(one.yearly()[cat][0], y[i]), cat


def test_compute_is_the_stages_in_order():
    built, p, _ = _mixed_batch()
    out = tco.compute(p, built.structure)
    *_, flows, figures = _run_stages(p, built.structure)
    assert np.array_equal(out.tco, flows.tco)
    assert all(np.array_equal(out.metrics[k], v, equal_nan=True) for k, v in figures.values.items())


def _functions(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef):
            yield node


def test_compute_is_a_short_pipeline():
    node = next(n for n in _functions(ROOT / "costmodel" / "pipeline" / "tco.py") if n.name == "compute")
    assert node.end_lineno - node.lineno + 1 <= MAX_PIPELINE_LINES


def test_no_shape_stretching_trick_is_left_in_the_model():
    """``x + 0.0 * y`` (or ``y * 0 + x``) only stretched shapes; inputs are broadcast once instead."""
    trick = re.compile(r"\+\s*0(\.0*)?\s*\*|\*\s*0(\.0*)?\s*\+")
    found = [f"{path.relative_to(ROOT)}:{i}" for path in sorted((ROOT / "costmodel").rglob("*.py"))
             for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if trick.search(line)]
    assert found == []


@pytest.mark.parametrize(("module", "name"), STAGES)
def test_each_stage_has_a_numpydoc_docstring_and_is_in_the_model_doc(module, name):
    doc = inspect.getdoc(getattr(module, name))
    for section in ("Parameters\n----------", "Returns\n-------", "Notes\n-----", "References\n----------"):
        assert section in doc, (name, section)
    assert f"costmodel/pipeline/stages/{name}.py" in (ROOT / "docs" / "model.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["discount_rate", "residual_frac", "instalment_rate"])
def test_a_batch_varying_one_finance_input_keeps_its_rows(name):
    """Varying only a finance input used to give a ``(1, F)`` TCO beside an ``(S, F)`` NPV."""
    built = build(costmodel.load_preset("seed-intro-32xA100"))
    s = 4
    out = tco.compute(built.inputs.replace(**{name: np.linspace(0.0, 0.2, s).reshape(-1, 1)}), built.structure)
    shape = (s, len(built.structure.fabric_ids))
    assert out.tco.shape == out.pv_cost.shape == shape
    assert all(v.shape == shape for v in out.breakdown.values())
    assert len(costmodel.pipeline.results.to_frame(out)) == s * shape[1]
