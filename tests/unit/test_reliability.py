import numpy as np
import pytest

from costmodel.physics import reliability


def test_daly_reduces_to_young_when_save_time_is_small():
    m = 1e7
    for d in (1.0, 10.0, 60.0):
        ratio = reliability.daly_interval(d, m) / reliability.young_interval(d, m)
        assert ratio == pytest.approx(1.0, abs=0.01)


def test_daly_caps_at_mtbf_when_save_time_is_long():
    assert reliability.daly_interval(500.0, 200.0) == 200.0
    assert reliability.daly_interval(np.array([1.0, 1e6]), np.array([1e5, 1e5])).tolist()[1] == 1e5


def test_daly_interval_is_near_the_true_optimum_of_its_wall_time_model():
    """Daly's higher-order estimate should beat Young's and be within 0.1 % of the best."""
    for d, m, r in [(60.0, 3600.0 * 8, 300.0), (300.0, 3600.0 * 2, 600.0), (30.0, 3600.0 * 100, 60.0)]:
        taus = np.linspace(1.0, 5 * m, 200_000)
        best = reliability.goodput(taus, d, r, m).max()
        daly = reliability.goodput(reliability.daly_interval(d, m), d, r, m)
        young = reliability.goodput(reliability.young_interval(d, m), d, r, m)
        assert daly >= young - 1e-12
        assert daly >= best * (1 - 1e-3)


def test_goodput_limits():
    tau, d = 3600.0, 60.0
    assert reliability.goodput(tau, d, 0.0, 1e15) == pytest.approx(tau / (tau + d))
    assert reliability.goodput(tau, d, 600.0, 3600.0) < reliability.goodput(tau, d, 600.0, 36000.0)
    g = reliability.goodput(np.array([tau]), d, np.array([0.0, 600.0]), 36000.0)
    assert g[0] > g[1]


def test_failure_rate_components():
    total, net = reliability.job_failure_rate(10, 8, 80, 1e-5, 2e-5, 3e-6)
    assert net == pytest.approx(80 * 3e-6)
    assert total == pytest.approx(10 * 8 * 1e-5 + 10 * 2e-5 + 80 * 3e-6)
