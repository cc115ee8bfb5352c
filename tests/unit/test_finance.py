import numpy as np
import numpy_financial as npf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from costmodel.money import finance


@settings(max_examples=100, deadline=None)
@given(st.floats(0.0, 0.5), st.lists(st.floats(-1e7, 1e7), min_size=1, max_size=16))
def test_npv_matches_numpy_financial(rate, values):
    assert finance.npv(rate, np.array(values)) == pytest.approx(npf.npv(rate, values), rel=1e-9, abs=1e-6)


@settings(max_examples=100, deadline=None)
@given(st.floats(1.0, 1e6), st.lists(st.floats(1.0, 1e6), min_size=1, max_size=10))
def test_irr_matches_numpy_financial_on_conventional_flows(outlay, inflows):
    flows = np.array([-outlay, *inflows])
    if flows.sum() <= 0:
        assert np.isnan(finance.irr(flows))
        return
    expected = npf.irr(flows)
    got = finance.irr(flows)
    assert got == pytest.approx(expected, rel=1e-6, abs=1e-9)
    assert finance.npv(got, flows) == pytest.approx(0.0, abs=1e-6 * outlay)


def test_instalments_sum_to_pmt_times_months():
    rate, months = 0.06, 36
    sched = finance.capex_schedule(5, "instalments", months, rate, 0.0)
    assert sched[0] == 0.0
    assert sched.sum() == pytest.approx(-npf.pmt(rate / 12, months, 1.0) * months)
    assert sched[1:4] == pytest.approx([-npf.pmt(rate / 12, months, 1.0) * 12] * 3)
    assert sched[4:].tolist() == [0.0, 0.0]
    # the present value at the loan's own rate is the amount borrowed (monthly compounding)
    monthly = -npf.pmt(rate / 12, months, 1.0)
    assert sum(monthly / (1 + rate / 12) ** k for k in range(1, months + 1)) == pytest.approx(1.0)


def test_zero_and_tiny_rates_pay_linearly():
    for rate in (0.0, 1e-300):
        sched = finance.capex_schedule(3, "instalments", 30, rate, 0.1)
        assert np.isfinite(sched).all()
        assert sched.tolist() == pytest.approx([0.0, 0.4, 0.4, 0.2 - 0.1])


def test_payback_interpolates_and_reports_never():
    out = finance.payback_years(np.array([[-100.0, 50.0, 100.0], [-100.0, 10.0, 10.0], [0.0, 0.0, 0.0]]))
    assert out[0] == pytest.approx(1.5)
    assert np.isnan(out[1])
    assert out[2] == 0.0
