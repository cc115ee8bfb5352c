"""Month-by-month cumulative cost over the horizon, and where two fabrics' curves cross.

The model books cash flows per year (``FabricResult.yearly``, year 0 = purchase, years
1..H = operation). For a timeline chart they are laid out per month:

* year-0 flows (capex paid at purchase) land at month 0;
* each operating year's total (``yearly[y]["total"]``, y ≥ 1) is spread evenly over its 12
  months, so the cumulative cost at the end of year ``y`` (month ``12·y``) is exact and the
  curve is a straight line within a year.

Spreading evenly is exact for recurring costs (energy, CPU overhead, interruptions,
operations: constant per year) and for instalments when every year is paid in full (a
constant monthly payment). Two flows are smoothed: the resale credit of the last year,
which really arrives at the end of the horizon, is spread over that year's 12 months; and an
instalment term that is not a multiple of 12 months pays its part-year in fewer months than
it is drawn over. Year-end values are exact either way. The last value is pinned to
``tco_total`` so the chart and the tables agree to the cent (the yearly flows add up to it
within rounding).

Pure numpy; no Streamlit, no Plotly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from costmodel.analysis.crossings import sign_changes
from costmodel.pipeline.results import Result

MONTHS_PER_YEAR = 12


def _fabrics(result) -> list[tuple[str, list, float]]:
    """(id, yearly rows, tco_total) per fabric of a Result or of its ``to_dict()`` document."""
    if isinstance(result, Mapping):
        return [(f["id"], f["yearly"], float(f["tco_total"])) for f in result["fabrics"]]
    return [(f.id, f.yearly, float(f.tco_total)) for f in result.fabrics]


def year_end_cumulative(yearly_totals, tco_total: float) -> np.ndarray:
    """Cumulative cost at the end of years 0..H, the last one pinned to ``tco_total``.

    >>> year_end_cumulative([100.0, 10.0, 10.0], 120.0).tolist()
    [100.0, 110.0, 120.0]
    """
    out = np.cumsum(np.asarray(yearly_totals, dtype=float))
    out[-1] = float(tco_total)
    return out


def spread_monthly(year_end: np.ndarray) -> np.ndarray:
    """Cumulative cost at months 0..12·H from year-end values (linear within each year).

    Values at months ``12·y`` equal ``year_end[y]`` exactly; the months in between stay within
    the two year-ends, so the curve is monotone whenever the year-ends are.

    >>> spread_monthly(np.array([0.0, 12.0]))[[0, 1, 6, 12]].tolist()
    [0.0, 1.0, 6.0, 12.0]
    """
    c = np.asarray(year_end, dtype=float)
    horizon = c.size - 1
    if horizon < 1:
        return c.copy()
    frac = np.arange(1, MONTHS_PER_YEAR + 1, dtype=float) / MONTHS_PER_YEAR  # (12,)
    start, end = c[:-1, None], c[1:, None]  # (H, 1)
    inner = start + (end - start) * frac  # (H, 12)
    inner = np.clip(inner, np.minimum(start, end), np.maximum(start, end))
    inner[:, -1] = c[1:]  # year-ends exact
    return np.concatenate([c[:1], inner.ravel()])


def monthly_cumulative(result: Result | Mapping) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Months ``0..12·H`` and, per fabric id, the cumulative cost at the end of each month.

    ``result`` is a :class:`~costmodel.pipeline.results.Result` (or its ``to_dict()`` document). Month
    0 holds the year-0 flows; each operating year is spread evenly over its 12 months (see
    the module docstring for what that smooths). The last value equals ``tco_total``.

    >>> doc = {"horizon_years": 2, "fabrics": [  # 100 up front, then 12 a year
    ...     {"id": "x", "tco_total": 124.0, "yearly": [{"total": 100.0}, {"total": 12.0}, {"total": 12.0}]}]}
    >>> months, curves = monthly_cumulative(doc)
    >>> months[[0, 1, 12, 24]].tolist(), curves["x"][[0, 1, 12, 24]].tolist()
    ([0, 1, 12, 24], [100.0, 101.0, 112.0, 124.0])
    """
    curves = {}
    horizon = None
    for fid, yearly, tco in _fabrics(result):
        totals = [float(row["total"]) for row in yearly]
        curves[fid] = spread_monthly(year_end_cumulative(totals, tco))
        horizon = len(totals) - 1
    if horizon is None:
        h = result["horizon_years"] if isinstance(result, Mapping) else result.horizon_years
        horizon = int(h)
    months = np.arange(MONTHS_PER_YEAR * horizon + 1)
    return months, curves


def crossovers(months, a, b) -> list[tuple[float, float]]:
    """Points ``(month, cost)`` where cumulative curves ``a`` and ``b`` cross.

    A crossing is a change of sign of ``a − b`` between consecutive samples, located by
    linear interpolation. A sample where the curves are exactly equal between a positive and
    a negative stretch (or a run of equal samples there) counts once, at its first month.
    Equal stretches that the difference leaves on the same side it came from (a touch), and
    equal samples at the very start or end, are not crossings.

    >>> crossovers([0, 1, 2], [0.0, 2.0, 4.0], [1.0, 1.5, 2.0])  # a starts below, ends above
    [(0.6666666666666666, 1.3333333333333333)]
    >>> crossovers([0, 1, 2, 3], [1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0])  # equal at month 1
    [(1.0, 2.0)]
    >>> crossovers([0, 1, 2], [1.0, 2.0, 3.0], [2.0, 2.0, 4.0])  # touches at month 1
    []
    >>> crossovers([0, 1], [0.0, 1.0], [0.0, 2.0])  # common start is not a crossing
    []
    """
    x = np.asarray(months, dtype=float)
    a = np.asarray(a, dtype=float)
    d = a - np.asarray(b, dtype=float)
    points: list[tuple[float, float]] = []
    for i, j in zip(*sign_changes(d), strict=True):
        if d[j] != 0:  # strict crossing between two samples
            t = d[i] / (d[i] - d[j])
            points.append((float(x[i] + t * (x[j] - x[i])), float(a[i] + t * (a[j] - a[i]))))
        else:  # equal samples in between: the first one is the crossing
            points.append((float(x[j]), float(a[j])))
    return points


class Crossing(NamedTuple):
    """Where the cumulative cost of fabric ``b`` crosses that of fabric ``a`` (the baseline).

    ``month`` in months from purchase (fractional: interpolated), ``cost`` the cumulative cost
    there [model currency].
    """

    a: str
    b: str
    month: float
    cost: float


@dataclass(frozen=True)
class Cumulative:
    """The cumulative-cost view of a result: months ``0..12·H``, one curve per fabric id
    [model currency], and each fabric's crossings with the baseline."""

    months: np.ndarray
    curves: dict[str, np.ndarray]
    crossings: list[Crossing]


def cumulative(result: Result | Mapping) -> Cumulative:
    """Month-by-month cumulative cost of every fabric and where each crosses the baseline.

    Crossings are listed fabric by fabric (in the result's order), each fabric's by month.

    >>> doc = {"horizon_years": 1, "baseline": "x", "fabrics": [
    ...     {"id": "x", "tco_total": 24.0, "yearly": [{"total": 0.0}, {"total": 24.0}]},
    ...     {"id": "y", "tco_total": 18.0, "yearly": [{"total": 6.0}, {"total": 12.0}]}]}
    >>> cumulative(doc).crossings
    [Crossing(a='x', b='y', month=6.0, cost=12.0)]
    """
    months, curves = monthly_cumulative(result)
    base = result["baseline"] if isinstance(result, Mapping) else result.baseline
    crossings = [Crossing(base, fid, m, c) for fid in curves if fid != base
                 for m, c in crossovers(months, curves[base], curves[fid])]
    return Cumulative(months, curves, crossings)


__all__ = ["Crossing", "Cumulative", "crossovers", "cumulative", "monthly_cumulative", "spread_monthly",
           "year_end_cumulative"]
