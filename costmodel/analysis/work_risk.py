"""Equal work under uncertainty: each fabric's cluster is sized once, at typical values,
for the plan (:mod:`costmodel.pipeline.equal_work`) — as a buyer sizes a cluster before buying it — and
every Monte Carlo draw then prices that cluster and checks that it still delivers the plan.

The draws are those of :func:`costmodel.analysis.uncertainty.monte_carlo` with the same seed (the same
quantities, the same generator calls), so the two views of one seed describe the same worlds.
Under parallelism "best" each fabric keeps the layout the search picks at its size with typical
values. One call of :func:`costmodel.pipeline.tco.compute` for all draws and fabrics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from costmodel.analysis.uncertainty import PERCENTILES, Sample, layout_at_typical, sample
from costmodel.pipeline.equal_work import EqualWork, at_work_size, cash_cost, delivers
from costmodel.pipeline.tco import compute
from costmodel.scenario.schema import Scenario


@dataclass(frozen=True)
class WorkMonteCarlo:
    """Per draw and fabric, ``(draws, F)``: the cash cost of each fabric's equal-work cluster over the
    horizon [currency] and whether it delivers the plan in that draw; ``nodes`` ``(F,)`` the size
    (0 where no size delivers the plan at typical values: those columns are NaN / False), up to
    ``max_nodes``, the largest cluster the sizing tried."""

    fabric_ids: tuple[str, ...]
    currency: str
    nodes: np.ndarray
    max_nodes: int
    cost: np.ndarray
    delivers: np.ndarray
    seed: int

    def summary(self) -> pd.DataFrame:
        """Per fabric: ``nodes`` (and ``max_nodes``, the sizing's limit), P10/P50/P90 of the cost of the
        work, ``prob_first`` (share of draws in which its cluster is the cheapest of the sized ones) and
        ``prob_delivers`` (share of draws in which that cluster still delivers the plan: the schedule
        risk of buying that size)."""
        sized = self.nodes > 0
        ok = self.delivers & sized[None, :]
        pct = np.percentile(np.where(sized[None, :], self.cost, 0.0), PERCENTILES, axis=0)
        winner = np.argmin(np.where(sized[None, :], self.cost, np.inf), axis=1)
        any_ok = np.full(winner.shape, bool(sized.any()))
        rows = []
        for j, fid in enumerate(self.fabric_ids):
            row = {"fabric": fid, "nodes": int(self.nodes[j]), "max_nodes": self.max_nodes}
            row.update({f"p{p}": float(pct[i, j]) if sized[j] else float("nan") for i, p in enumerate(PERCENTILES)})
            row["prob_delivers"] = float(ok[:, j].mean())
            row["prob_first"] = float((any_ok & (winner == j)).mean())
            rows.append(row)
        return pd.DataFrame(rows)


def work_monte_carlo(scenario: Scenario, draws: int = 10_000, seed: int = 0, *, drawn: Sample | None = None,
                     work: EqualWork | None = None) -> WorkMonteCarlo:
    """Draw the ranged quantities as :func:`costmodel.analysis.uncertainty.monte_carlo` does and evaluate each
    fabric's equal-work cluster (sized at typical values) in every draw. ``drawn``: a
    :func:`~costmodel.analysis.uncertainty.sample` of ``scenario`` to use (its own draws and seed); ``work``:
    the scenario's sizing already made (``Result.equal_work``), else it is made here.

    >>> w = work_monte_carlo(Scenario(), draws=200, seed=1)
    >>> w.cost.shape, bool(w.summary()["prob_delivers"].between(0, 1).all())
    ((200, 4), True)
    """
    drawn = drawn or sample(scenario, draws, seed)  # the draws monte_carlo makes: the same worlds per seed
    built = drawn.built
    target = scenario.workload.target_run_days
    p, st, work = at_work_size(built.inputs, built.structure, target, work)
    p, st = layout_at_typical(p, st)
    rows = p.replace(**drawn.values)
    out = compute(rows, st, lines=False)
    sized = work.feasible[None, :]
    return WorkMonteCarlo(
        fabric_ids=built.structure.fabric_ids, currency=built.structure.currency,
        nodes=np.where(work.feasible, work.nodes, 0).astype(int), max_nodes=work.max_nodes,
        cost=np.where(sized, cash_cost(out), np.nan), delivers=delivers(rows, out, target) & sized, seed=drawn.seed,
    )


__all__ = ["WorkMonteCarlo", "work_monte_carlo"]
