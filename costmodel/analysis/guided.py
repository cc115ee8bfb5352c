"""The quick estimate's questions of the model: the largest cluster a budget buys, and the fabric
that answers what matters most.

:func:`largest_within` sizes the cluster from a budget with the node-count sweep (one vectorised
model call per round): the largest node count at which the cheapest compared fabric's TCO over the
horizon fits the budget. :func:`pick` names the fabric the guide leads with: ``cost`` is the model's
own recommendation (:mod:`costmodel.pipeline.recommend`: the cheapest way to do the work), ``time``
the fabric whose training run is shortest on the cluster, ``risk`` the one that loses the fewest
hours a year to interruptions; ties go to the lower TCO. Money in the price book's currency.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costmodel.api import sweep
from costmodel.errors import ChoiceError, RangeError
from costmodel.pipeline.results import Result
from costmodel.scenario.schema import Scenario
from costmodel.scenario.validation import field_bounds

ROUND_POINTS = 257  # node counts tried per round of the search
PRIORITY_METRIC = {"time": "run_days", "risk": "lost_hours_per_year"}  # cost: the recommendation


@dataclass(frozen=True)
class Budgeted:
    """The largest cluster within a budget: ``nodes`` (None when not one server fits), the cheapest
    fabric's TCO there [currency], and the TCO of the smallest and largest clusters a scenario may have."""

    nodes: int | None
    tco: float
    smallest_tco: float
    at_limit: bool  # the budget buys more than the largest cluster a scenario may have


def _cheapest_tco(scenario: Scenario, nodes: np.ndarray) -> np.ndarray:
    """The cheapest compared fabric's TCO at each node count of ``nodes`` (shape ``(N,)``)."""
    df = sweep(scenario, nodes)
    return df.groupby("nodes", sort=True)["tco_total"].min().reindex(nodes.astype(int)).to_numpy(dtype=float)


def largest_within(scenario: Scenario, budget: float) -> Budgeted:
    """The largest node count whose cheapest-fabric TCO fits ``budget`` [the scenario's currency].

    Multi-section search over the node count on the model itself: each round evaluates up to
    :data:`ROUND_POINTS` counts between the last that fits and the first that does not, so the
    answer is exact (the next count up costs more than the budget) where TCO grows with nodes.
    """
    if not np.isfinite(budget) or budget <= 0:
        raise RangeError(f"the budget must be a positive amount (got {budget!r})", "budget", 0, np.inf, got=budget)
    lo_bound, hi_bound = (int(b) for b in field_bounds("cluster.nodes"))
    ends = np.array([lo_bound, hi_bound], dtype=float)
    smallest, largest = _cheapest_tco(scenario, ends)
    if smallest > budget:
        return Budgeted(None, float(smallest), float(smallest), False)
    if largest <= budget:
        return Budgeted(hi_bound, float(largest), float(smallest), True)
    lo, hi, tco = lo_bound, hi_bound, float(smallest)  # tco(lo) fits, tco(hi) does not
    while hi - lo > 1:
        grid = np.unique(np.geomspace(lo, hi, min(ROUND_POINTS, hi - lo + 1)).round())
        costs = _cheapest_tco(scenario, grid)
        fits = costs <= budget
        i = int(np.flatnonzero(fits)[-1])  # grid[0] = lo fits
        lo, tco = int(grid[i]), float(costs[i])
        hi = int(grid[i + 1]) if i + 1 < grid.size else hi
    return Budgeted(lo, tco, float(smallest), False)


def pick(result: Result, priority: str) -> str:
    """The fabric the guide leads with for ``priority`` (``time``, ``cost`` or ``risk``)."""
    if priority == "cost":
        return result.recommendation.cost_optimal
    if priority not in PRIORITY_METRIC:
        raise ChoiceError(f"unknown priority {priority[:20]!r}", "priority", ["cost", *PRIORITY_METRIC],
                          got=priority[:20])
    fabrics = [f for f in result.fabrics if f.metrics["fits_memory"]] or list(result.fabrics)
    key = PRIORITY_METRIC[priority]
    return min(fabrics, key=lambda f: (float(f.metrics[key]), f.tco_total)).id


__all__ = ["PRIORITY_METRIC", "Budgeted", "largest_within", "pick"]
