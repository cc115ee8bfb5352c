"""The Poisson tail of large batches (:mod:`costmodel.physics.poisson`): each row summed only over its
terms that matter, against the tail summed term by term in exact rational arithmetic."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from costmodel.physics import poisson
from costmodel.physics import reliability as rel


def _exact_tail(mu: float, s: int) -> float:
    """``P(K ≥ s)`` for ``K ~ Poisson(μ)``: ``1 − e^{−μ} Σ_{k<s} μ^k / k!`` with the sum in fractions."""
    if s <= 0:
        return 1.0
    m = Fraction(mu)
    term, below = Fraction(1), Fraction(0)
    for k in range(s):
        below += term
        term = term * m / (k + 1)
    return float(max(0.0, 1.0 - math.exp(-mu) * below)) if mu < 700 else float("nan")


CASES = [(0.0, 0), (0.0, 1), (0.0, 7), (1e-9, 1), (0.3, 1), (0.3, 3), (2.5, 2), (2.5, 12), (20.6, 18), (20.6, 21),
         (20.6, 60), (41.9, 42), (41.9, 43), (41.9, 150), (41.9, 328), (150.0, 120), (150.0, 151), (600.0, 650)]


def test_the_tail_matches_exact_arithmetic_on_either_side_of_the_mean():
    mu = np.array([m for m, _ in CASES])
    s = np.array([float(k) for _, k in CASES])
    got = poisson.tail(mu, s)
    want = np.array([_exact_tail(m, k) for m, k in CASES])
    assert got == pytest.approx(want, abs=1e-13, rel=1e-9)


def test_a_large_batch_agrees_with_the_one_scenario_path_row_by_row():
    """``no_spare_probability`` takes the per-row series above its small-batch size; the same rows one at
    a time take the every-term sum: the two agree far inside the 1e-9 the model's outputs are held to."""
    rng = np.random.default_rng(7)
    mu = rng.uniform(0.0, 45.0, size=(20_000, 4))
    s = rng.integers(0, 330, size=(20_000, 4)).astype(float)
    batch = rel.no_spare_probability(mu, s)
    picks = rng.integers(0, mu.size, size=200)
    one = np.array([float(rel.no_spare_probability(mu.flat[i], s.flat[i])) for i in picks])
    assert batch.shape == mu.shape
    assert np.abs(batch.flat[picks] - one).max() < 1e-12


def test_rows_far_beyond_the_mean_are_zero_and_rows_without_spares_are_one():
    got = poisson.tail(np.array([3.0, 3.0, 1e-300, 500.0]), np.array([400.0, 0.0, 1.0, 5.0]))
    assert got[0] == pytest.approx(0.0, abs=1e-300)
    assert got[1] == 1.0 and got[3] == 1.0
    assert got[2] == pytest.approx(1e-300, rel=1e-9)
