"""A sweep computes each distinct node count once and gathers the table's rows: a sweep with repeated,
unordered node counts must give, row for row, what a sweep of those counts without repeats gives."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import costmodel


@pytest.mark.parametrize("preset", ["seed-intro-32xA100", "seed-case1-8xA10"])
def test_repeated_node_counts_give_the_rows_of_their_own_count(preset):
    scenario = costmodel.load_preset(preset)
    nodes = np.random.default_rng(7).integers(2, 600, size=400)  # ~300 distinct counts, unordered
    assert len(np.unique(nodes)) < len(nodes)
    table = costmodel.sweep(scenario, nodes=nodes)
    distinct = list(dict.fromkeys(nodes.tolist()))  # first-seen order: no repeats, no gather
    alone = costmodel.sweep(scenario, nodes=distinct).set_index(["nodes", "fabric"])
    n_fab = len(scenario.fabrics)
    assert len(table) == len(nodes) * n_fab
    assert table["nodes"].tolist() == np.repeat(nodes, n_fab).tolist()
    expected = alone.loc[list(zip(table["nodes"], table["fabric"], strict=True))].reset_index()
    pd.testing.assert_frame_equal(table, expected[table.columns], check_exact=True)


def test_a_sweep_without_repeats_keeps_its_order():
    scenario = costmodel.load_preset("seed-intro-32xA100")
    nodes = [64, 8, 512, 2]
    table = costmodel.sweep(scenario, nodes=nodes)
    assert table["nodes"].tolist() == np.repeat(nodes, len(scenario.fabrics)).tolist()
    one = costmodel.sweep(scenario, nodes=[512])
    pd.testing.assert_frame_equal(table[table["nodes"] == 512].reset_index(drop=True), one, check_exact=True)
