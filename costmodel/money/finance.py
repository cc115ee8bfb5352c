"""Cash-flow schedules, NPV, instalments, payback and IRR.

Conventions (as numpy-financial): rates are decimals per period; in :func:`npv` and
:func:`irr` a negative value is cash flowing out. Cost flows elsewhere in the model are
positive numbers (a cost), so ``npv(rate, -costs)`` is the (negative) present value of a TCO.
Year 0 is the purchase date; years 1..H are the operating years. Arrays broadcast; the year
axis is the last one.

References
----------
.. [1] L.J. Gitman, Principles of Managerial Finance, Brief, 3rd ed., 2003, pp. 346-348.
.. [2] numpy-financial ``npv``, ``pmt``, ``irr``.
"""

from __future__ import annotations

import numpy as np

from costmodel.money import ledger  # the schedules' formulas, shared with Excel


def capex_schedule(horizon_years: int, payment: str, months, annual_rate, residual_frac):
    """Share of one unit of capex paid in each year 0..H (last axis), net of resale.

    * ``upfront``: 1 in year 0.
    * ``instalments``: ``M`` monthly payments ``pmt(i/12, M, −1)`` from month 1, summed per year
      (interest included, so the shares add up to more than 1 when ``i > 0``).
    * resale: ``− residual_frac`` in year ``H``.

    >>> capex_schedule(3, "upfront", 36, 0.0, 0.1).round(3).tolist()
    [1.0, 0.0, 0.0, -0.1]
    >>> capex_schedule(3, "instalments", 24, 0.0, 0.0).round(3).tolist()
    [0.0, 0.5, 0.5, 0.0]
    """
    env = {"instalment_rate": annual_rate, "instalment_months": months, "residual_frac": residual_frac}
    return ledger.capex_schedule(horizon_years, payment, env)


def recurring_schedule(horizon_years: int):
    """One unit per operating year: 0 in year 0, 1 in years 1..H.

    >>> recurring_schedule(3).tolist()
    [0.0, 1.0, 1.0, 1.0]
    """
    return ledger.recurring_schedule(horizon_years)


def discount_factors(rate, horizon_years: int):
    """``(1 + r)^-t`` for t = 0..H (last axis).

    >>> discount_factors(0.1, 2).round(4).tolist()
    [1.0, 0.9091, 0.8264]
    """
    years = np.arange(horizon_years + 1, dtype=float)
    return (1.0 + np.asarray(rate, dtype=float)[..., None]) ** -years


def npv(rate, values):
    """Net present value of ``values`` (year 0 first, last axis), ``Σ v_t / (1+r)^t``.

    Same result as ``numpy_financial.npv`` for one series, vectorised over leading axes.

    >>> round(float(npv(0.08, np.array([-40_000, 5_000, 8_000, 12_000, 30_000]))), 5)
    3065.22267
    """
    values = np.asarray(values, dtype=float)
    return (values * discount_factors(rate, values.shape[-1] - 1)).sum(axis=-1)


def payback_years(savings):
    """Years until cumulative ``savings`` (year 0 first, last axis) turn non-negative for good.

    Payback is the first year after which the cumulative saving stays ≥ 0 to the end of the
    horizon, interpolated linearly within that year; 0 when it never dips below zero (the fabric
    is cheaper throughout); NaN when the cumulative saving ends below zero (never pays back).
    Leading years without flows (instalments start in year 1) do not count as paid back.

    >>> payback_years(np.array([[-100., 40., 40., 40.], [-100., 10., 10., 10.], [5., 1., 1., 1.]])).tolist()
    [2.5, nan, 0.0]
    >>> payback_years(np.array([[0., -50., 30., 30.], [10., -20., 1., 1.]])).tolist()
    [2.6666666666666665, nan]
    """
    s = np.asarray(savings, dtype=float)
    cum = np.cumsum(s, axis=-1)
    ok = cum >= 0
    # from year t on the cumulative saving never falls below zero again
    stays = np.flip(np.logical_and.accumulate(np.flip(ok, axis=-1), axis=-1), axis=-1)
    first = np.argmax(stays, axis=-1)
    never = ~stays[..., -1]
    prev = np.take_along_axis(cum, np.maximum(first - 1, 0)[..., None], axis=-1)[..., 0]
    this = np.take_along_axis(s, first[..., None], axis=-1)[..., 0]
    frac = np.where(this > 0, -prev / np.where(this > 0, this, 1.0), 0.0)
    years = np.where(first == 0, 0.0, first - 1.0 + frac)
    return np.where(never, np.nan, years)


def irr(values, lo: float = -0.99, iterations: int = 64):
    """Internal rate of return of each series (last axis), by bisection; NaN if none.

    Defined where the first non-zero flow is negative and the total is positive (one sign
    change in the cumulative sense, so NPV falls monotonically through zero). Agrees with
    ``numpy_financial.irr`` on such series.

    >>> round(float(irr(np.array([-100., 39., 59., 55., 20.]))), 5)
    0.28095
    """
    v = np.asarray(values, dtype=float)
    # leading zero flows (instalments start in year 1) shift the series but not its roots
    lead = np.argmax(v != 0, axis=-1)
    first = np.take_along_axis(v, lead[..., None], axis=-1)[..., 0]
    valid = (first < 0) & (v.sum(axis=-1) > 0)
    # NPV(r) <= v0 + Σ inflows / (1 + r) for r > 0, so the root lies below Σ inflows / |v0| − 1.
    out = np.full(valid.shape, np.nan)
    if not valid.any():  # no series has a root to find (a fabric cheaper throughout, or never paying back)
        return out
    v, first = v[valid], first[valid]  # bisect only the series that have one
    inflows = np.where(v > 0, v, 0.0).sum(axis=-1)
    a = np.full(v.shape[:-1], lo)
    b = np.maximum(1.0, inflows / -first)
    for _ in range(iterations):
        mid = 0.5 * (a + b)
        positive = npv(mid, v) > 0
        a = np.where(positive, mid, a)
        b = np.where(positive, b, mid)
    out[valid] = 0.5 * (a + b)
    return out
