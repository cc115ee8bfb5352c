"""Equal work with the cluster re-sized in every draw (costmodel/analysis/work_resize.py): each draw's
size really does the plan's work and one node fewer does not, a scan of every node count agrees, one
draw at a time gives what the batch gives, seeds reproduce, and the monotonicity flag is earned."""

from __future__ import annotations

import numpy as np
import pytest

import costmodel
from costmodel.analysis import uncertainty, work_resize
from costmodel.pipeline.equal_work import at_work_size, cash_cost, delivers
from costmodel.pipeline.tco import compute

SMALL = "seed-case1-8xA10"  # sizes up to 128 nodes: every count can be scanned
WIDE = "seed-case3-128xH100"  # TCP and iWARP slow down near the top of its grid in some draws


def _prepared(scenario, drawn):
    """The inputs the module prices (each fabric's layout at its typical-value size) and the draws."""
    built = drawn.built
    p, st, work = at_work_size(built.inputs, built.structure, scenario.workload.target_run_days)
    p, st = uncertainty.layout_at_typical(p, st)
    return p.replace(**drawn.values), st, work


def _at(rows, st, nodes, target):
    """Delivers and cash cost of every draw and fabric at ``nodes`` ``(draws, F)``, computed afresh."""
    p = rows.replace(nodes=np.asarray(nodes, dtype=float))
    out = compute(p, st, lines=False)
    return delivers(p, out, target), cash_cost(out), out.metrics["run_days"]


def test_every_draws_size_delivers_the_plan_and_one_node_fewer_does_not():
    s = costmodel.load_preset(SMALL)
    drawn = uncertainty.sample(s, 400, 3)
    r = work_resize.resized_monte_carlo(s, drawn=drawn)
    rows, st, _ = _prepared(s, drawn)
    target = s.workload.target_run_days
    assert r.found.all() and r.monotone.all()
    ok, cost, days = _at(rows, st, r.nodes, target)
    assert ok.all()
    np.testing.assert_allclose(r.cost, cost, rtol=1e-12)
    limit = min(target or np.inf, 365.0 / s.workload.runs_per_year)
    assert (days <= limit * (1 + 1e-12)).all()  # the same work: the plan's runs, each within the target
    below, _, _ = _at(rows, st, np.maximum(r.nodes - 1, 1), target)
    assert not (below & (r.nodes > 1)).any()


def test_a_scan_of_every_node_count_finds_the_same_sizes():
    s = costmodel.load_preset(SMALL)
    drawn = uncertainty.sample(s, 6, 11)
    r = work_resize.resized_monte_carlo(s, drawn=drawn)
    rows, st, work = _prepared(s, drawn)
    counts = np.arange(1.0, work.max_nodes + 1.0)
    for d in range(6):
        scan = rows.replace(**{k: np.repeat(v[d : d + 1], counts.size, axis=0) for k, v in drawn.values.items()},
                            nodes=counts[:, None])
        out = compute(scan, st, lines=False)
        ok = delivers(scan, out, s.workload.target_run_days)
        first = np.where(ok.any(axis=0), counts[np.argmax(ok, axis=0)], 0)
        assert r.nodes[d].tolist() == first.astype(int).tolist()


def test_one_draw_at_a_time_gives_what_the_batch_gives():
    s = costmodel.load_preset(WIDE)
    drawn = uncertainty.sample(s, 40, 2)
    batch = work_resize.resized_monte_carlo(s, drawn=drawn)
    for d in (0, 7, 23, 39):
        one = uncertainty.Sample(drawn.built, {k: v[d : d + 1] for k, v in drawn.values.items()}, drawn.seed)
        single = work_resize.resized_monte_carlo(s, drawn=one)
        assert single.nodes[0].tolist() == batch.nodes[d].tolist()
        assert single.monotone[0].tolist() == batch.monotone[d].tolist()
        np.testing.assert_allclose(single.cost[0], batch.cost[d], rtol=1e-12, equal_nan=True)


def test_seeds_reproduce_and_differ():
    s = costmodel.load_preset(SMALL)
    a = work_resize.resized_monte_carlo(s, draws=300, seed=5)
    b = work_resize.resized_monte_carlo(s, draws=300, seed=5)
    c = work_resize.resized_monte_carlo(s, draws=300, seed=6)
    np.testing.assert_array_equal(a.nodes, b.nodes)
    np.testing.assert_array_equal(a.cost, b.cost)
    assert not np.array_equal(a.cost, c.cost)


def test_flagged_draws_are_those_where_more_nodes_stop_delivering():
    s = costmodel.load_preset(WIDE)
    drawn = uncertainty.sample(s, 400, 4)
    r = work_resize.resized_monte_carlo(s, drawn=drawn)
    rows, st, work = _prepared(s, drawn)
    target = s.workload.target_run_days
    flagged = ~r.monotone
    assert flagged.any(), "the wide preset has draws whose delivery is not monotone in the nodes"
    assert not (flagged & ~r.found).any()
    ok_next, _, _ = _at(rows, st, np.minimum(r.nodes + 1, work.max_nodes), target)
    ok_top, _, _ = _at(rows, st, np.full(r.nodes.shape, work.max_nodes), target)
    evidence = r.found & ~(ok_next & ok_top)
    np.testing.assert_array_equal(flagged, evidence)
    ok, _, _ = _at(rows, st, np.where(r.found, r.nodes, 1), target)
    assert ok[r.found].all()  # a flagged size still delivers the plan; it need not be the smallest


def test_the_summary_reads_the_draws():
    s = costmodel.load_preset(SMALL)
    r = work_resize.resized_monte_carlo(s, draws=500, seed=1)
    df = r.summary()
    assert list(df["fabric"]) == list(r.fabric_ids)
    for j, row in enumerate(df.itertuples(index=False)):
        assert row.nodes_p50 == pytest.approx(np.percentile(r.nodes[:, j], 50))
        assert row.p10 <= row.p50 <= row.p90
        assert row.prob_found == pytest.approx(r.found[:, j].mean())
    assert df["prob_first"].sum() == pytest.approx(1.0)
