"""Monte Carlo over the catalog's low/typical/high ranges, and the tornado of ΔTCO.

Both reuse :func:`costmodel.pipeline.tco.compute` on a batch: each draw or each swing is one row.
Draws are triangular(low, typical, high), independent per quantity and per fabric, taken
from one ``Generator.random`` call and the inverse CDF (vectorised; reproducible by seed).
With parallelism "best", Monte Carlo keeps each fabric at the layout the search picks with the
typical values (a run's layout is planned before the uncertain figures are known); the
tornado searches again for each swing.

References
----------
.. [1] D. Vose, Risk Analysis: A Quantitative Guide, 3rd ed., Wiley 2008 (triangular
   distribution, tornado charts).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from costmodel import quantities
from costmodel.catalog.loader import load_catalog
from costmodel.errors import ChoiceError, RangeError
from costmodel.pipeline.equal_work import EqualWork, at_work_size, cash_cost
from costmodel.pipeline.inputs import Built, Inputs, Structure, Uncertain, build
from costmodel.pipeline.tco import compute
from costmodel.scenario.schema import Scenario

MAX_DRAWS = 1_000_000
PERCENTILES = (10, 50, 90)

#: Scenario inputs swung by ± tornado_swing_frac in the tornado, with their allowed bounds
#: (model units), generated from the registry (data/quantities.yaml, ``swing: scenario``).
SCENARIO_SWINGS: dict[str, tuple[float, float]] = {
    q.model.field: q.model_bounds() for q in quantities.swung("scenario")
}


def triangular_ppf(u, low, mode, high):
    """Inverse CDF of the triangular distribution (vectorised); ``low == high`` gives ``low``.

    >>> float(triangular_ppf(0.5, 0.0, 0.5, 1.0)), float(triangular_ppf(0.3, 2.0, 2.0, 2.0))
    (0.5, 2.0)
    """
    u, low, mode, high = (np.asarray(x, dtype=float) for x in (u, low, mode, high))
    span = high - low
    left, right = mode - low, high - mode
    above = u >= left / np.where(span > 0, span, 1.0)
    # one square root per draw: u·(mode − low)·span left of the mode, (1 − u)·(high − mode)·span right;
    # computed in place (two draw-sized arrays, not ten: the draws dominate a Monte Carlo's memory traffic)
    shape = np.broadcast_shapes(u.shape, low.shape, mode.shape, high.shape)
    out, other = np.empty(shape), np.empty(shape)
    np.multiply(u, left, out=out)
    out *= span
    np.subtract(1.0, u, out=other)
    other *= right
    other *= span
    np.copyto(out, other, where=above)
    np.sqrt(out, out=out)
    np.subtract(high, out, out=other)
    out += low
    np.copyto(out, other, where=above)
    return out


@dataclass(frozen=True)
class MonteCarloResult:
    """TCO per draw and fabric, ``(draws, F)``, with summary statistics."""

    fabric_ids: tuple[str, ...]
    baseline: str
    currency: str
    tco: np.ndarray
    run_days: np.ndarray
    seed: int
    tco_after_tax: np.ndarray | None = None  # (draws, F); equals tco without a tax region

    @property
    def delta(self) -> np.ndarray:
        """TCO minus the baseline's TCO in the same draw, ``(draws, F)``."""
        j = self.fabric_ids.index(self.baseline)
        return self.tco - self.tco[:, j : j + 1]

    def summary(self) -> pd.DataFrame:
        """Per fabric: mean, P10/P50/P90 of TCO and ΔTCO, and P(cheaper than the baseline)."""
        pct = np.percentile(self.tco, PERCENTILES, axis=0)
        dpct = np.percentile(self.delta, PERCENTILES, axis=0)
        rows = []
        for j, fid in enumerate(self.fabric_ids):
            row = {"fabric": fid, "mean": float(self.tco[:, j].mean())}
            row.update({f"p{p}": float(pct[i, j]) for i, p in enumerate(PERCENTILES)})
            row.update({f"delta_p{p}": float(dpct[i, j]) for i, p in enumerate(PERCENTILES)})
            row["prob_cheaper_than_baseline"] = float((self.delta[:, j] < 0).mean())
            rows.append(row)
        return pd.DataFrame(rows)


def _draw(uncertain: list[Uncertain], draws: int, rng: np.random.Generator) -> dict:
    widths = [u.typical.shape[1] for u in uncertain]
    low = np.concatenate([u.low for u in uncertain], axis=1)
    mode = np.concatenate([u.typical for u in uncertain], axis=1)
    high = np.concatenate([u.high for u in uncertain], axis=1)
    values = triangular_ppf(rng.random((draws, low.shape[1])), low, mode, high)
    out, start = {}, 0
    for u, w in zip(uncertain, widths, strict=False):
        out[u.name] = values[:, start : start + w]
        start += w
    return out


def layout_at_typical(p: Inputs, st: Structure) -> tuple[Inputs, Structure]:
    """Under parallelism "best": the inputs with each fabric's layout fixed at the one the search
    picks for ``p`` (one row), and a structure that does not search again; else unchanged."""
    if st.parallelism != "best":
        return p, st
    m = compute(p, st, lines=False).metrics
    fixed = {"tp": m["layout_tp"], "pipeline_stages": m["layout_pp"], "vp": m["layout_vp"],
             "zero": m["layout_zero"], "micro_seqs": m["layout_micro_seqs"], "recompute": m["layout_recompute"]}
    return p.replace(**fixed), dataclasses.replace(st, parallelism="best_at_typical")


@dataclass(frozen=True)
class Sample:
    """One Monte Carlo sample of a scenario: its model arrays and ``draws`` values of every ranged
    quantity (``name → (draws, width)``). :func:`monte_carlo` and
    :func:`costmodel.analysis.work_risk.work_monte_carlo` draw the same sample for the same seed; one
    sample can feed both (the PDF report does)."""

    built: Built
    values: dict[str, np.ndarray]
    seed: int


def sample(scenario: Scenario, draws: int = 10_000, seed: int = 0) -> Sample:
    """Build ``scenario`` and draw its ranged quantities ``draws`` times (``seed``: the generator's)."""
    if not 1 <= int(draws) <= MAX_DRAWS:
        raise RangeError(f"draws must be between 1 and {MAX_DRAWS:,}", "draws", 1, MAX_DRAWS, draws)
    built = build(scenario)
    return Sample(built, _draw(built.uncertain, int(draws), np.random.default_rng(seed)), seed)


def monte_carlo(scenario: Scenario, draws: int = 10_000, seed: int = 0, *, drawn: Sample | None = None
                ) -> MonteCarloResult:
    """Draw every ranged catalog quantity ``draws`` times and evaluate all fabrics at once
    (``drawn``: a :func:`sample` of ``scenario`` to use instead; ``draws`` and ``seed`` are then its own).

    >>> mc = monte_carlo(Scenario(), draws=200, seed=1)
    >>> mc.tco.shape
    (200, 4)
    """
    drawn = drawn or sample(scenario, draws, seed)
    built = drawn.built
    typical, structure = layout_at_typical(built.inputs, built.structure)
    out = compute(typical.replace(**drawn.values), structure, lines=False)
    return MonteCarloResult(
        fabric_ids=built.structure.fabric_ids, baseline=scenario.baseline,
        currency=built.structure.currency, tco=out.tco, run_days=out.metrics["run_days"],
        seed=drawn.seed, tco_after_tax=out.metrics["tco_after_tax"],
    )


def _swing_rows(built, fabric_j: int, base_j: int, swing: float, p: Inputs | None = None,
                skip: tuple[str, ...] = ()):
    """(name, fabric or None, low array dict, high array dict) for each tornado input; scenario inputs
    swing around their values in ``p`` (default: the scenario's), those in ``skip`` stay."""
    p = built.inputs if p is None else p
    rows = []
    for u in built.uncertain:
        if u.per_fabric:
            for j in dict.fromkeys((fabric_j, base_j)):
                lo, hi = u.typical.copy(), u.typical.copy()
                lo[0, j], hi[0, j] = u.low[0, j], u.high[0, j]
                rows.append((u.name, built.structure.fabric_ids[j], lo, hi))
        else:
            rows.append((u.name, None, u.low, u.high))
    for name, (lo_b, hi_b) in SCENARIO_SWINGS.items():
        if name in skip:
            continue
        typ = getattr(p, name)
        if np.isnan(typ).all():  # left empty: the model derives it (the kernel efficiency from the shapes)
            continue
        lo = np.clip(typ * (1.0 - swing), lo_b, hi_b)
        hi = np.clip(typ * (1.0 + swing), lo_b, hi_b)
        if name == "nodes":
            lo, hi = np.maximum(1.0, np.round(lo)), np.round(hi)
        rows.append((name, None, lo, hi))
    return rows


#: what the tornado can measure: the pre-tax TCO, the after-tax one, or the cash cost of the plan's
#: work on each fabric's equal-work cluster
TORNADO_METRICS = ("tco", "tco_after_tax", "work_cost")


def tornado(scenario: Scenario, fabric: str | None = None, metric: str = "tco", *,
            work: EqualWork | None = None) -> pd.DataFrame:
    """Swing each input to its low and high and record ΔTCO of ``fabric`` vs the baseline.

    Ranged catalog quantities swing over their [low, high]; scenario inputs by ± the
    ``tornado_swing_frac`` of defaults.yaml. ``fabric`` defaults to the first non-baseline
    fabric; ``metric`` is ``tco`` (pre-tax), ``tco_after_tax`` (which the tax inputs move) or
    ``work_cost``: the cash cost of the plan's work, each fabric on the cluster sized for it at
    typical values (:func:`costmodel.pipeline.equal_work.at_work_size`, its layout kept; the node count is
    then not swung; ``work``: that sizing when the caller holds it, as ``Result.equal_work``). Rows are
    sorted by swing, largest first.

    >>> df = tornado(Scenario(), "ib-ndr-400")
    >>> {"parameter", "delta_low", "delta_high", "swing"} <= set(df.columns)
    True
    """
    if metric not in TORNADO_METRICS:
        raise ChoiceError(f"metric must be one of {list(TORNADO_METRICS)} (got {metric!r})", "metric",
                          list(TORNADO_METRICS), metric)
    built = build(scenario)
    st = built.structure
    ids = list(st.fabric_ids)
    base_j = st.baseline_index
    if fabric is None:
        fabric = next((f for f in ids if f != scenario.baseline), scenario.baseline)
    if fabric not in ids:
        raise ChoiceError(f"fabric {fabric!r} is not among the scenario's fabrics {ids}", "fabric", ids, fabric)
    fab_j = ids.index(fabric)
    swing = load_catalog().constant("tornado_swing_frac")
    p = built.inputs
    if metric == "work_cost":
        p, st, work = at_work_size(p, st, scenario.workload.target_run_days, work)
        unsized = [ids[j] for j in dict.fromkeys((fab_j, base_j)) if not work.feasible[j]]
        if unsized:
            raise ChoiceError(f"no cluster up to {work.max_nodes:,} nodes delivers the plan on {unsized[0]!r}, so "
                              "the cost of its work has no value to swing; choose the pre-tax or after-tax TCO",
                              "metric", ["tco", "tco_after_tax"], metric)
        p, st = layout_at_typical(p, st)
    rows = _swing_rows(built, fab_j, base_j, swing, p, skip=("nodes",) if metric == "work_cost" else ())
    n = len(rows)
    batch = {}
    for name in {r[0] for r in rows}:
        typ = getattr(p, name)
        batch[name] = np.repeat(typ, 2 * n + 1, axis=0)
    for i, (name, _, lo, hi) in enumerate(rows):
        batch[name][2 * i] = lo[0]
        batch[name][2 * i + 1] = hi[0]
    out = compute(p.replace(**batch), st, lines=False)
    total = {"tco": out.tco, "work_cost": cash_cost(out)}.get(metric) if metric != "tco_after_tax" \
        else out.metrics[metric]
    delta = total[:, fab_j] - total[:, base_j]
    base_delta = float(delta[-1])
    records = []
    for i, (name, fab, lo, hi) in enumerate(rows):
        col = ids.index(fab) if fab else 0
        records.append({
            "parameter": name,
            "fabric": fab,
            "low_value": float(lo[0, col]),
            "high_value": float(hi[0, col]),
            "delta_low": float(delta[2 * i]),
            "delta_high": float(delta[2 * i + 1]),
            "base_delta": base_delta,
        })
    df = pd.DataFrame(records)
    df["swing"] = (df["delta_high"] - df["delta_low"]).abs()
    df = df[(df["low_value"] != df["high_value"])]
    return df.sort_values("swing", ascending=False, ignore_index=True)
