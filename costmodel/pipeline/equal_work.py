"""Equal work: each fabric's cluster sized in whole nodes to deliver the same training plan.

The headline comparison. The work is the scenario's plan — ``runs_per_year`` runs
of its workload, each optionally within ``target_run_days`` — and every fabric gets the
fewest whole nodes that do it: the plan fits in a year (``runs · T_run ≤ 8760 h``), the layout
fits GPU memory, and a run takes no longer than the target. The cost of the work is then the
cash cost of that cluster over the horizon in cluster scope (servers included: a slower fabric
pays for its slowness with nodes), so no value of time enters the headline at all.

One vectorised pass over a node grid (all counts up to :data:`DENSE_UP_TO`, then steps of
:data:`GRID_STEP`), then, when a first fit lies where the grid skips whole numbers, one over the
whole numbers just below it: at most two calls of :func:`costmodel.pipeline.tco.compute`, whatever the
number of fabrics (:func:`costmodel.api.evaluate` folds the first into the scenario's own call).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from costmodel.money.ledger import CATEGORIES, TIME_CATEGORIES
from costmodel.pipeline.inputs import Inputs, Structure
from costmodel.pipeline.tco import Outputs, compute
from costmodel.scenario.validation import field_bounds

#: every node count up to this one is tried
DENSE_UP_TO = 64
#: above it, counts grow by this factor (then the gap below the first fit is filled)
GRID_STEP = 1.05
#: the search looks up to this multiple of the scenario's nodes (and at least to DENSE_UP_TO)
SEARCH_FACTOR = 16
HOURS_PER_DAY = 24.0
#: the step of a run on the sized cluster, kept to explain it: step time, pure compute and network time
#: on the critical path [s], interruptions [per year]
STEP_KEYS: tuple[str, ...] = ("step_time_s", "compute_time_s", "exposed_comm_s", "interruptions_per_year")
#: the cash categories of the equal-work breakdown
CASH_CATEGORIES: tuple[str, ...] = tuple(c for c in CATEGORIES if c not in TIME_CATEGORIES)


@dataclass(frozen=True)
class EqualWork:
    """Per fabric (arrays of shape ``(F,)``): the cluster that delivers the plan and its cost.

    ``nodes`` is 0 and the figures NaN where no cluster up to ``max_nodes`` delivers it.
    Money in the scenario's currency; cost over the horizon, cluster scope, cash only.
    """

    fabric_ids: tuple[str, ...]
    runs_per_year: float  # the plan [runs/year]
    target_run_days: float | None  # the longest run the plan accepts [days], None = the year
    max_nodes: int  # the largest cluster tried [count]
    nodes: np.ndarray  # nodes needed [count]
    feasible: np.ndarray  # a cluster was found [bool]
    cost: np.ndarray  # cash cost of the work over the horizon [currency]
    #: the cost of the work shared over the runs it delivers, ``cost / (runs · H)``: the sized cluster's
    #: idle hours included, so not the cost per run of one cluster (that is the metric ``cost_per_run``)
    work_cost_per_run: np.ndarray  # [currency/run]
    run_days: np.ndarray  # one run on that cluster [days]
    plan_load: np.ndarray  # share of the year the plan keeps that cluster busy [0-1]
    network_capex: np.ndarray  # [currency]
    breakdown: dict[str, np.ndarray]  # cash categories over the horizon [currency]
    step: dict[str, np.ndarray] = field(default_factory=dict)  # STEP_KEYS on that cluster [s, per year]

    @property
    def cheapest(self) -> int | None:
        """Index of the fabric that does the work for the least cash (None: none can)."""
        if not self.feasible.any():
            return None
        return int(np.argmin(np.where(self.feasible, self.cost, np.inf)))

    def to_dict(self) -> dict:
        """JSON-ready: one entry per fabric (null where none delivers the plan)."""
        def clean(x) -> float | None:
            return float(x) if np.isfinite(x) else None

        return {
            "runs_per_year": self.runs_per_year, "target_run_days": self.target_run_days,
            "max_nodes": self.max_nodes,
            "fabrics": {fid: {"nodes": int(self.nodes[j]) if self.feasible[j] else None,
                              "cost": clean(self.cost[j]), "work_cost_per_run": clean(self.work_cost_per_run[j]),
                              "run_days": clean(self.run_days[j]), "plan_load": clean(self.plan_load[j]),
                              "network_capex": clean(self.network_capex[j]),
                              "breakdown": {c: clean(v[j]) for c, v in self.breakdown.items()}}
                        for j, fid in enumerate(self.fabric_ids)},
        }


#: the fixed-cluster view's figures with the cluster always busy: the most runs a year it can make (the cost
#: per run is the same under every schedule, :mod:`costmodel.money.unit_cost`)
BUSY_KEYS: tuple[str, ...] = ("runs_per_year",)


def always_busy(p: Inputs, st: Structure, out: Outputs | None = None) -> dict[str, np.ndarray]:
    """The fixed cluster kept busy all year (``(F,)`` arrays of :data:`BUSY_KEYS`): the runs per year
    each fabric can make on the scenario's nodes, its capacity whatever the plan asks.
    ``out``: that row already computed (one row, ``always_busy`` schedule), else it is computed here."""
    if out is None:
        out = compute(p, dataclasses.replace(st, schedule="always_busy"))
    return {k: np.asarray(out.metrics[k][0], dtype=float) for k in BUSY_KEYS}


def node_grid(nodes: float) -> np.ndarray:
    """The node counts tried first: 1 … :data:`DENSE_UP_TO`, then × :data:`GRID_STEP` up to
    ``max(SEARCH_FACTOR · nodes, DENSE_UP_TO)``, never beyond the largest cluster a scenario may have.

    >>> g = node_grid(8); int(g[0]), int(g[63]), int(g[-1]), bool(np.all(np.diff(g) > 0))
    (1, 64, 128, True)
    """
    top = int(min(field_bounds("cluster.nodes")[1], max(SEARCH_FACTOR * nodes, DENSE_UP_TO)))
    dense = np.arange(1, min(DENSE_UP_TO, top) + 1, dtype=float)
    if top <= DENSE_UP_TO:
        return dense
    k = int(np.ceil(np.log(top / DENSE_UP_TO) / np.log(GRID_STEP)))
    sparse = np.unique(np.ceil(DENSE_UP_TO * GRID_STEP ** np.arange(1, k + 1)))
    return np.concatenate([dense, np.minimum(sparse, top)]).astype(float).clip(max=top)


def delivers(p: Inputs, out: Outputs, target_days: float | None) -> np.ndarray:
    """``(S, F)``: the row's cluster delivers the plan — it fits the year, memory and the target,
    and the fixed layout exists on it (tensor × pipeline and expert groups within its GPUs)."""
    m = out.metrics
    ok = (m["fits_plan"] > 0) & (m["fits_memory"] > 0)
    if target_days is not None:
        ok &= m["run_days"] <= target_days * (1.0 + 1e-12)
    gpus = p.nodes * p.gpus_per_node
    ok &= gpus >= p.tp * p.pipeline_stages
    ok &= np.where(p.experts > 0, gpus / p.pipeline_stages >= p.ep, True)
    return np.broadcast_to(ok, out.tco.shape)


def cash_cost(out: Outputs) -> np.ndarray:
    """``(S, F)``: the cash cost over the horizon, ``TCO − time costs`` [currency] (the time costs,
    :data:`costmodel.money.ledger.TIME_CATEGORIES`, are opportunity costs, not cash)."""
    return out.tco - sum(out.breakdown[c] for c in TIME_CATEGORIES)


def _first_fit(ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column of ``ok`` ``(S, F)``: the first row that is True, and whether there is one."""
    any_ok = ok.any(axis=0)
    return np.where(any_ok, np.argmax(ok, axis=0), -1), any_ok


def size_for_work(p: Inputs, st: Structure, target_run_days: float | None = None,
                  coarse: Outputs | None = None) -> EqualWork:
    """The fewest whole nodes per fabric that deliver the plan, and the cash cost of the work.

    Parameters
    ----------
    p : Inputs
        The scenario's inputs (one row, ``S = 1``); its ``nodes`` is replaced by the grid.
    st : Structure
        Its choices; the search runs the ``plan`` schedule in ``cluster`` scope.
    target_run_days : float, optional
        The longest run the plan accepts [days].
    coarse : Outputs, optional
        The model already run on :func:`node_grid` rows (``plan`` schedule, cluster scope), as
        :func:`costmodel.api.evaluate` does in the scenario's own batch; else it is run here.

    Returns
    -------
    EqualWork

    Notes
    -----
    Cash cost ``= TCO − time costs`` (:data:`costmodel.money.ledger.TIME_CATEGORIES`): waiting and lost
    hours already show as the nodes the plan needs. Feasibility need not be monotonic in
    ``N`` (a layout may fit memory at 24 nodes and not at 25): the answer is the smallest count
    of the grid that fits, refined over the whole numbers between it and the grid point below.
    """
    plan = dataclasses.replace(st, schedule="plan", scope="cluster")
    grid = node_grid(float(np.asarray(p.nodes).ravel()[0]))
    coarse_rows = p.replace(nodes=grid[:, None])
    if coarse is None:
        coarse = compute(coarse_rows, plan)
    first, found = _first_fit(delivers(coarse_rows, coarse, target_run_days))
    # refine each fabric over the whole numbers from the grid point below its first fit to the fit
    hi = np.where(found, grid[np.maximum(first, 0)], grid[0])
    lo = np.where(first > 0, grid[np.maximum(first - 1, 0)] + 1.0, grid[0])
    if np.all(lo[found] == hi[found]):  # every fit is where the grid has every whole number: done
        fine, rows, out = grid, coarse_rows, coarse
    else:
        fine = np.unique(np.concatenate([np.arange(a, b + 1.0) for a, b in zip(lo[found], hi[found], strict=True)]))
        rows = p.replace(nodes=fine[:, None])
        out = compute(rows, plan)
    ok = delivers(rows, out, target_run_days) & (fine[:, None] >= lo) & (fine[:, None] <= hi)
    pick, _ = _first_fit(ok)  # the fit itself is among the rows: every found fabric has one
    cols = np.arange(len(st.fabric_ids))
    pick = np.maximum(pick, 0)

    def take(values: np.ndarray) -> np.ndarray:
        return np.where(found, np.broadcast_to(values, out.tco.shape)[pick, cols], np.nan)

    runs = float(np.asarray(p.runs_per_year).ravel()[0])
    cost = take(cash_cost(out))
    return EqualWork(
        fabric_ids=tuple(st.fabric_ids), runs_per_year=runs, target_run_days=target_run_days,
        max_nodes=int(grid[-1]), nodes=np.where(found, fine[pick], 0.0).astype(int), feasible=found,
        cost=cost, work_cost_per_run=cost / (runs * st.horizon_years),
        run_days=take(out.metrics["run_days"]), plan_load=take(out.metrics["plan_load"]),
        network_capex=take(out.amounts["network_capex"]),
        breakdown={c: take(out.breakdown[c]) for c in CASH_CATEGORIES},
        step={k: take(out.metrics[k]) for k in STEP_KEYS},
    )


def at_work_size(p: Inputs, st: Structure, target_run_days: float | None = None, work: EqualWork | None = None
                 ) -> tuple[Inputs, Structure, EqualWork]:
    """The inputs with each fabric's ``nodes`` at the size the plan needs (a ``(1, F)`` row; 1 node
    where no size delivers it, see ``EqualWork.feasible``), the plan's structure (``plan`` schedule,
    cluster scope) and the sizing itself: what the equal-work figures of a batch are computed on.
    ``work``: the sizing of these inputs already made (``Result.equal_work``), else it is made here."""
    work = size_for_work(p, st, target_run_days) if work is None else work
    nodes = np.where(work.feasible, work.nodes, 1).astype(float)[None, :]
    return p.replace(nodes=nodes), dataclasses.replace(st, schedule="plan", scope="cluster"), work
