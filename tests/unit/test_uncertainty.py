import numpy as np
import pytest

import costmodel
from costmodel.analysis.uncertainty import triangular_ppf


def test_triangular_ppf_matches_its_distribution():
    u = np.random.default_rng(0).random(200_000)
    x = triangular_ppf(u, 1.0, 2.0, 5.0)
    assert x.min() >= 1.0 and x.max() <= 5.0
    assert x.mean() == pytest.approx((1 + 2 + 5) / 3, rel=0.01)
    assert np.all(triangular_ppf(u[:10], 3.0, 3.0, 3.0) == 3.0)


def test_monte_carlo_is_reproducible_and_ordered():
    s = costmodel.load_preset("seed-case2-24xA100")
    a = costmodel.monte_carlo(s, draws=3000, seed=7)
    b = costmodel.monte_carlo(s, draws=3000, seed=7)
    c = costmodel.monte_carlo(s, draws=3000, seed=8)
    assert np.array_equal(a.tco, b.tco) and not np.array_equal(a.tco, c.tco)
    summary = a.summary()
    assert (summary["p10"] <= summary["p50"]).all() and (summary["p50"] <= summary["p90"]).all()
    base = summary.set_index("fabric").loc[s.baseline]
    assert base["prob_cheaper_than_baseline"] == 0.0
    point = costmodel.evaluate(s)
    for f in point.fabrics:
        row = summary.set_index("fabric").loc[f.id]
        assert row["p10"] * 0.8 <= f.tco_total <= row["p90"] * 1.2


def test_monte_carlo_runs_the_same_model():
    """Draw one sample by hand and check the batch gave the same TCO as compute() on it."""
    from costmodel.analysis.uncertainty import _draw
    from costmodel.pipeline.inputs import build
    from costmodel.pipeline.tco import compute

    s = costmodel.load_preset("seed-intro-32xA100")
    built = build(s)
    drawn = _draw(built.uncertain, 5, np.random.default_rng(11))
    batch = compute(built.inputs.replace(**drawn), built.structure).tco
    single = compute(built.inputs.replace(**{k: v[2:3] for k, v in drawn.items()}), built.structure).tco
    assert np.allclose(batch[2], single[0], rtol=1e-12)
    mc = costmodel.monte_carlo(s, draws=5, seed=11)
    assert np.allclose(mc.tco, batch, rtol=1e-12)


def test_tornado_is_sorted_and_centred_on_the_point_estimate():
    s = costmodel.load_preset("seed-case2-24xA100")
    df = costmodel.tornado(s, "ib-ndr-400")
    point = costmodel.evaluate(s).fabric("ib-ndr-400").delta_vs_baseline
    assert df["base_delta"].iloc[0] == pytest.approx(point, rel=1e-9, abs=1e-6)
    assert (df["swing"].diff().dropna() <= 1e-9).all()
    params = set(df["parameter"])
    assert {"switch_price", "electricity_price", "pue", "nic_price"} <= params
    switch = df[(df["parameter"] == "switch_price") & (df["fabric"] == "ib-ndr-400")].iloc[0]
    assert switch["delta_high"] > switch["delta_low"]
    with pytest.raises(ValueError):
        costmodel.tornado(s, "nope")
