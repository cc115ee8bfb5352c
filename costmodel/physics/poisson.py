"""The Poisson tail ``P(K ≥ s)`` of a large batch, each row summed only over the terms that matter.

A row with ``s > μ`` sums the upper tail ``Σ_{k≥s} p_k`` upwards from ``p_s`` (term ratio
``μ/(k+1) < 1``); a row with ``s ≤ μ`` sums ``Σ_{k<s} p_k`` downwards from ``p_{s−1}`` (ratio ``k/μ < 1``)
and returns ``1 −`` it. The terms a row leaves out add up to less than :data:`NEGLIGIBLE` (a geometric
bound on the ratios), and never beyond ``μ ± (12√μ + 30)``, where the Poisson tails are below 1e-30.
Rows are sorted by their number of terms, so step ``j`` touches only the rows that still need one.
"""

from __future__ import annotations

import math

import numpy as np

#: the terms a row leaves out add up to less than this (absolute, on a probability) [0-1]
NEGLIGIBLE = 1e-17


def log_factorial(kmax: int) -> np.ndarray:
    """``ln k!`` for ``k = 0 … kmax``, each to the last bit (``math.lgamma``)."""
    return np.array([math.lgamma(k + 1.0) for k in range(kmax + 1)])


def _terms(log_first: np.ndarray, ratio: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """Terms per row such that the rest of a series starting at ``e^{log_first}`` with term ratios at most
    ``ratio`` (< 1) is below :data:`NEGLIGIBLE`, and at most ``cap`` [count]."""
    with np.errstate(divide="ignore", invalid="ignore"):
        need = (np.log(NEGLIGIBLE * (1.0 - ratio)) - log_first) / np.log(ratio)
    need = np.where(np.isfinite(log_first) & (ratio > 0), np.ceil(np.maximum(need, 0.0)), 1.0)
    return np.minimum(need, cap).astype(np.int64)


def _series(first: np.ndarray, count: np.ndarray, factor, *params: np.ndarray) -> np.ndarray:
    """``Σ_{j<count} t_j`` per row, ``t_0 = first``, ``t_{j+1} = t_j · factor(j, *params)``, ``params`` given
    for the rows (sorted by count, most first) that still sum term ``j``."""
    order = np.argsort(-count, kind="stable")
    n_sorted = count[order]
    term = first[order]
    params = tuple(p[order] for p in params)
    total = np.zeros_like(term)
    active = np.searchsorted(-n_sorted, -np.arange(int(n_sorted[0]) if n_sorted.size else 0), side="right")
    for j, m in enumerate(active.tolist()):  # m rows still have a term j
        total[:m] += term[:m]
        term[:m] *= factor(j, *(p[:m] for p in params))
    out = np.empty_like(total)
    out[order] = total
    return out


def tail(mu: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``P(K ≥ s)`` for ``K ~ Poisson(μ)``, flat arrays of means ``μ ≥ 0`` and whole ``s ≥ 0`` [0-1]."""
    mu, s = np.asarray(mu, dtype=float).ravel(), np.asarray(s, dtype=float).ravel()
    log_fact = log_factorial(int(s.max(initial=0.0)))
    with np.errstate(divide="ignore"):
        log_mu = np.log(mu)
    reach = 12.0 * np.sqrt(mu) + 30.0  # beyond μ ± reach each Poisson tail is below 1e-30
    out = np.ones_like(mu)
    up = s > mu
    if up.any():  # Σ_{k ≥ s} p_k, upwards: p_{k+1} = p_k μ/(k+1)
        m, k0 = mu[up], s[up]
        log_first = np.where(m > 0, k0 * log_mu[up], -np.inf) - m - log_fact[k0.astype(np.int64)]
        count = _terms(log_first, m / (k0 + 1.0), np.maximum(np.ceil(m + reach[up]) - k0 + 1.0, 1.0))
        out[up] = np.clip(_series(np.exp(log_first), count, lambda j, a, b: a / (b + (j + 1.0)), m, k0), 0.0, 1.0)
    low = ~up & (s > 0)
    if low.any():  # 1 − Σ_{k < s} p_k, downwards from k = s − 1: p_{k−1} = p_k k/μ
        m, k0 = mu[low], s[low] - 1.0
        log_first = k0 * log_mu[low] - m - log_fact[k0.astype(np.int64)]
        count = _terms(log_first, k0 / m, np.minimum(k0 + 1.0, np.floor(k0 - (m - reach[low])) + 1.0).clip(min=1.0))
        out[low] = np.clip(1.0 - _series(np.exp(log_first), count, lambda j, a, b: (b - j) / a, m, k0), 0.0, 1.0)
    return out
