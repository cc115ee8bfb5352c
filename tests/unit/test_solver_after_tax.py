"""The break-even solver covers the tax rate: it moves only the tax shield, so the solver
measures the after-tax ΔTCO for it, and that curve is what separate evaluations give."""

from __future__ import annotations

import numpy as np
import pytest

import costmodel
from costmodel.analysis import breakeven


def _taxed(rate: float | None = None) -> costmodel.Scenario:
    data = costmodel.load_preset("seed-case2-24xA100").model_dump()
    data["finance"]["tax_region"] = "cn"
    data["finance"]["tax_rate"] = rate
    return costmodel.Scenario.model_validate(data)


def test_the_tax_rate_is_solvable_after_tax_and_nothing_else_is():
    assert breakeven.PARAMETERS["tax_rate"].after_tax
    assert [p for p, info in breakeven.PARAMETERS.items() if info.after_tax] == ["tax_rate"]
    be = breakeven.break_even(_taxed(), "ib-ndr-400", "tax_rate")
    assert be.metric == "tco_after_tax" and (be.values[0], be.values[-1]) == (0.0, 0.6)
    assert breakeven.break_even(_taxed(), "ib-ndr-400", "server_price", applies_to=None).metric == "tco"


@pytest.mark.parametrize("rate", [0.0, 0.15, 0.4])
def test_the_after_tax_curve_matches_separate_evaluations(rate):
    curve = breakeven.delta_curve(_taxed(), "ib-ndr-400", "tax_rate", [rate])
    res = costmodel.evaluate(_taxed(rate))
    after = {f.id: f.metrics["tco_after_tax"] for f in res.fabrics}
    assert curve[0] == pytest.approx(after["ib-ndr-400"] - after[res.baseline], rel=1e-9)
    if rate == 0.0:  # no tax: the pre-tax ΔTCO
        assert curve[0] == pytest.approx(res.fabric("ib-ndr-400").delta_vs_baseline, rel=1e-9)


def test_a_higher_tax_rate_shrinks_the_after_tax_difference():
    """Every cost here is deductible (time costs as forgone taxable income): ΔTCO after tax = (1 − τ) ΔTCO."""
    values = np.array([0.0, 0.2, 0.4, 0.6])
    d = breakeven.delta_curve(_taxed(), "ib-ndr-400", "tax_rate", values)
    np.testing.assert_allclose(d, d[0] * (1.0 - values), rtol=1e-9)
