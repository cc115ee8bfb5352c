"""Equal work under uncertainty with the cluster re-sized in every draw: the cost of the plan with
perfect foresight, beside :mod:`costmodel.analysis.work_risk` (one size, bought at typical values).

Per draw and fabric, the fewest whole nodes that deliver the plan (:func:`costmodel.pipeline.equal_work.delivers`:
the plan fits the year and GPU memory, a run meets the target, the layout exists), found by a bisection
over node counts run for all draws and fabrics at once: each step is one call of
:func:`costmodel.pipeline.tco.compute` on a ``(draws, F)`` batch whose ``nodes`` differ per row and
column. The draws are those of :func:`costmodel.analysis.uncertainty.monte_carlo` for the same seed.

Assumption: delivery is monotone in the node count (a cluster that delivers the plan, given one more
node, still does). It can fail: a fabric whose congestion grows with scale (TCP near the top of the
grid) runs slower on more nodes, and a layout can fit GPU memory at one count and not at the next.
A draw is flagged (``monotone`` False) where its size delivers but one node more, or the top of the
grid, does not: its size delivers the plan but need not be the smallest (bisection cannot see a
smaller count that delivers below one that does not). Draws with no size are not flagged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from costmodel.analysis.uncertainty import PERCENTILES, Sample, layout_at_typical, sample
from costmodel.pipeline.equal_work import EqualWork, at_work_size, cash_cost, delivers
from costmodel.pipeline.inputs import Inputs, Structure
from costmodel.pipeline.tco import compute
from costmodel.scenario.schema import Scenario


@dataclass(frozen=True)
class ResizedMonteCarlo:
    """Per draw and fabric, ``(draws, F)``: the nodes that deliver the plan in that draw (0 where no
    count up to ``max_nodes`` does), their cash cost over the horizon [currency] (NaN there), whether
    a size was found, and whether the draw's tried points were monotone (False: flagged, see the module).
    ``typical_nodes`` ``(F,)``: the size at typical values (0 where none)."""

    fabric_ids: tuple[str, ...]
    currency: str
    typical_nodes: np.ndarray
    max_nodes: int
    nodes: np.ndarray
    cost: np.ndarray
    found: np.ndarray
    monotone: np.ndarray
    seed: int

    def summary(self) -> pd.DataFrame:
        """Per fabric: ``typical_nodes``, ``max_nodes``, P10/P50/P90 of the re-sized nodes (``nodes_p10`` …)
        and of the cost of the work (``p10`` …) over the draws where a size was found (NaN if none),
        ``prob_found``, ``prob_first`` (share of draws in which its re-sized cluster is the cheapest) and
        ``prob_flagged`` (share of draws whose delivery was not monotone in the nodes tried)."""
        cost = np.where(self.found, self.cost, np.inf)
        winner = np.argmin(cost, axis=1)
        any_found = self.found.any(axis=1)
        rows = []
        for j, fid in enumerate(self.fabric_ids):
            ok = self.found[:, j]
            row = {"fabric": fid, "typical_nodes": int(self.typical_nodes[j]), "max_nodes": self.max_nodes}
            n_pct = np.percentile(self.nodes[ok, j], PERCENTILES) if ok.any() else [np.nan] * len(PERCENTILES)
            c_pct = np.percentile(self.cost[ok, j], PERCENTILES) if ok.any() else [np.nan] * len(PERCENTILES)
            row.update({f"nodes_p{p}": float(v) for p, v in zip(PERCENTILES, n_pct, strict=True)})
            row.update({f"p{p}": float(v) for p, v in zip(PERCENTILES, c_pct, strict=True)})
            row["prob_found"] = float(ok.mean())
            row["prob_first"] = float((any_found & (winner == j)).mean())
            row["prob_flagged"] = float((~self.monotone[:, j]).mean())
            rows.append(row)
        return pd.DataFrame(rows)


def _try(rows: Inputs, st: Structure, nodes: np.ndarray, target: float | None) -> tuple[np.ndarray, np.ndarray]:
    """The batch at ``nodes`` ``(draws, F)``: whether it delivers the plan, and its cash cost [currency]."""
    p = rows.replace(nodes=nodes)
    out = compute(p, st, lines=False)
    return delivers(p, out, target), cash_cost(out)


def resized_monte_carlo(scenario: Scenario, draws: int = 10_000, seed: int = 0, *, drawn: Sample | None = None,
                        work: EqualWork | None = None) -> ResizedMonteCarlo:
    """Draw the ranged quantities as :func:`costmodel.analysis.uncertainty.monte_carlo` does and, in every
    draw, size each fabric's cluster for the plan (the fewest whole nodes up to the sizing's
    ``max_nodes``) and price it (cash cost over the horizon, cluster scope). ``drawn``: a sample to use;
    ``work``: the sizing at typical values already made (``Result.equal_work``), else it is made here.

    The search starts from the typical-value size ``N*`` (bracket ``[0, N*]`` where it delivers, else
    ``[N*, max_nodes]``) and halves every bracket at once: about ``log2(max_nodes) + 3`` batches.

    >>> r = resized_monte_carlo(Scenario(), draws=100, seed=1)
    >>> r.nodes.shape, bool((r.nodes[r.found] >= 1).all())
    ((100, 4), True)
    """
    drawn = drawn or sample(scenario, draws, seed)
    built = drawn.built
    target = scenario.workload.target_run_days
    p, st, work = at_work_size(built.inputs, built.structure, target, work)
    p, st = layout_at_typical(p, st)  # each fabric keeps the layout of its typical-value size
    rows = p.replace(**drawn.values)
    n_draws = next(iter(drawn.values.values())).shape[0] if drawn.values else 1
    shape = (n_draws, len(built.structure.fabric_ids))
    start = np.broadcast_to(p.nodes, shape).astype(float)
    top = np.full(shape, float(work.max_nodes))
    ok_start, cost_start = _try(rows, st, start, target)
    ok_top, cost_top = _try(rows, st, top, target)
    found = ok_start | ok_top
    hi = np.where(ok_start, start, top)  # delivers (where found)
    lo = np.where(ok_start, 0.0, start)  # does not (0: no cluster)
    cost = np.where(ok_start, cost_start, np.where(ok_top, cost_top, np.nan))
    while (open_ := found & (hi - lo > 1.0)).any():
        mid = np.where(open_, np.floor((lo + hi) / 2.0), hi)
        ok, c = _try(rows, st, mid, target)
        hi, cost = np.where(open_ & ok, mid, hi), np.where(open_ & ok, c, cost)
        lo = np.where(open_ & ~ok, mid, lo)
    # the assumption checked where it matters: one node more, and the top of the grid, still deliver
    ok_next, _ = _try(rows, st, np.minimum(hi + 1.0, top), target)
    monotone = ~found | (ok_next & ok_top)
    return ResizedMonteCarlo(
        fabric_ids=built.structure.fabric_ids, currency=built.structure.currency,
        typical_nodes=np.where(work.feasible, work.nodes, 0).astype(int), max_nodes=work.max_nodes,
        nodes=np.where(found, hi, 0.0).astype(int), cost=np.where(found, cost, np.nan), found=found,
        monotone=monotone, seed=drawn.seed,
    )


__all__ = ["ResizedMonteCarlo", "resized_monte_carlo"]
