"""The same work under uncertainty and the tornado of its cost."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import costmodel
from costmodel.analysis import uncertainty, work_risk
from costmodel.errors import ChoiceError

SIZED = "seed-case2-24xA100"
UNSIZED = "seed-intro-32xA100"


def _unsized():
    """The intro preset on the 32-port 100G switches of 2016, where no size of the 100G fabrics keeps
    the runs within the plan (on the catalogue's 12.8 T switches in breakout every fabric can)."""
    s = costmodel.load_preset(UNSIZED)
    old = {"fabrics": {f: {"switch_radix": 32} for f in ("tcp-100", "iwarp-100", "roce-100")}}
    return s.model_copy(update={"overrides": type(s.overrides).model_validate(old)})


def test_the_draws_are_monte_carlos_for_the_same_seed(monkeypatch):
    seen = []
    real = uncertainty._draw

    def record(*args):
        seen.append(real(*args))
        return seen[-1]

    monkeypatch.setattr(uncertainty, "_draw", record)
    s = costmodel.load_preset(SIZED)
    uncertainty.monte_carlo(s, draws=300, seed=7)
    work_risk.work_monte_carlo(s, draws=300, seed=7)
    assert len(seen) == 2 and seen[0].keys() == seen[1].keys()
    for name in seen[0]:
        np.testing.assert_array_equal(seen[0][name], seen[1][name])


def test_one_sample_and_the_sizing_evaluate_made_give_what_separate_calls_give():
    s = costmodel.load_preset(SIZED)
    drawn = uncertainty.sample(s, 400, 5)
    np.testing.assert_array_equal(uncertainty.monte_carlo(s, drawn=drawn).tco,
                                  uncertainty.monte_carlo(s, draws=400, seed=5).tco)
    ew = costmodel.evaluate(s).equal_work
    shared = work_risk.work_monte_carlo(s, drawn=drawn, work=ew)
    alone = work_risk.work_monte_carlo(s, draws=400, seed=5)
    np.testing.assert_array_equal(shared.cost, alone.cost)
    np.testing.assert_array_equal(shared.delivers, alone.delivers)
    assert shared.seed == 5 and set(shared.summary()["max_nodes"]) == {ew.max_nodes}
    fabric = next(f for f in s.fabrics if f != s.baseline)
    pd_equal = costmodel.tornado(s, fabric, "work_cost", work=ew).equals(costmodel.tornado(s, fabric, "work_cost"))
    assert pd_equal


def test_a_given_sizing_is_the_one_priced():
    s = costmodel.load_preset(SIZED)
    ew = costmodel.evaluate(s).equal_work
    bigger = dataclasses.replace(ew, nodes=ew.nodes + 3)
    w = work_risk.work_monte_carlo(s, draws=50, seed=1, work=bigger)
    assert w.nodes.tolist() == (ew.nodes + 3).tolist()
    cheaper = work_risk.work_monte_carlo(s, draws=50, seed=1, work=ew)
    assert np.all(w.cost > cheaper.cost)  # more nodes for the same work cost more


def test_each_fabric_is_priced_at_the_nodes_equal_work_sized():
    s = costmodel.load_preset(SIZED)
    ew = costmodel.evaluate(s).equal_work
    w = work_risk.work_monte_carlo(s, draws=2000, seed=3)
    assert w.nodes.tolist() == ew.nodes.tolist()
    df = w.summary()
    # the cost at typical values lies inside the draws' P10–P90 band
    assert ((df["p10"] <= ew.cost) & (ew.cost <= df["p90"])).all()
    assert df["prob_first"].sum() == pytest.approx(1.0)
    assert df["prob_delivers"].between(0, 1).all()


def test_a_fabric_no_size_delivers_has_no_cost_and_never_wins():
    w = work_risk.work_monte_carlo(_unsized(), draws=500, seed=1)
    df = w.summary().set_index("fabric")
    for fid in ("tcp-100", "iwarp-100"):
        assert df.loc[fid, "nodes"] == 0 and np.isnan(df.loc[fid, "p50"])
        assert df.loc[fid, "prob_first"] == 0 and df.loc[fid, "prob_delivers"] == 0
        assert np.isnan(w.cost[:, w.fabric_ids.index(fid)]).all()


def test_the_sized_cluster_fits_at_typical_values_and_misses_in_some_slower_draws():
    """Sized to just meet the target at typical values, a cluster misses it in the slower draws."""
    s = costmodel.load_preset(SIZED)
    w = work_risk.work_monte_carlo(s, draws=400, seed=2)
    days = s.workload.target_run_days
    ew = costmodel.evaluate(s).equal_work
    assert ew.run_days.max() <= days  # sized to fit at typical values
    # slower-than-typical draws miss the target: the share that delivers is below one for some fabric
    assert (w.summary()["prob_delivers"] < 1).any()


def test_the_work_tornado_is_centred_on_the_equal_work_difference():
    s = costmodel.load_preset(SIZED)
    ew = costmodel.evaluate(s).equal_work
    df = costmodel.tornado(s, "ib-ndr-400", "work_cost")
    j, b = ew.fabric_ids.index("ib-ndr-400"), ew.fabric_ids.index(s.baseline)
    assert df["base_delta"].iloc[0] == pytest.approx(ew.cost[j] - ew.cost[b], rel=1e-9)
    assert "nodes" not in set(df["parameter"])
    # a dearer server hurts the fabric that needs more nodes: IB needs 19, TCP 101, so ΔCost falls
    row = df.set_index("parameter").loc["server_price"]
    assert row["delta_high"] < row["base_delta"] < row["delta_low"]


def test_the_work_tornado_refuses_a_fabric_no_size_delivers():
    with pytest.raises(ChoiceError, match="no cluster up to"):
        costmodel.tornado(_unsized(), "ib-ndr-400", "work_cost")
