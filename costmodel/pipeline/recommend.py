"""Two voices on which fabric to buy: the seed article's decision tree and the cost model.

The article's rule (its section 3.4) looks at node count, model size, budget and the ops team;
the cost model picks the cheapest fabric that fits the yearly plan. When they differ, the
reasons name the cost categories and performance figures that separate them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from costmodel.catalog.loader import Catalog, load_catalog

#: The article's tier boundaries (defaults.yaml: seed_rule): module constant → (key, type). Read from
#: the packaged catalog on first use (``recommend.SMALL_NODES``), never at import.
_TIERS = {"SMALL_NODES": ("small_nodes", int),  # [nodes]
          "LARGE_NODES": ("large_nodes", int),  # [nodes]
          "SMALL_PARAMS_B": ("small_params_b", float),  # [billion parameters]
          "LARGE_PARAMS_B": ("large_params_b", float)}  # [billion parameters]


def tiers(catalog: Catalog | None = None) -> dict[str, float]:
    """The seed rule's tier boundaries of ``catalog`` (default: the packaged one), by constant name.

    >>> tiers()["SMALL_NODES"] < tiers()["LARGE_NODES"]
    True
    """
    rule = (catalog or load_catalog()).seed_rule
    return {name: kind(rule[key].typical) for name, (key, kind) in _TIERS.items()}


def __getattr__(name: str):
    if name in _TIERS:
        return tiers()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: English wording of every reason; the app translates the same codes with the same fields.
REASONS = {
    "rule_large": "seed rule: {nodes} nodes > {large} → InfiniBand is the only choice",
    "rule_small_nodes": "seed rule: {nodes} nodes ≤ {small} → RoCE",
    "rule_mid_tight": "seed rule: {nodes} nodes in {small}–{large} with a tight budget → RoCE",
    "rule_mid": "seed rule: {nodes} nodes in {small}–{large} → InfiniBand",
    "rule_small_params": "seed rule: {params} B parameters ≤ {small} B → RoCE",
    "rule_mid_params": "seed rule: {params} B parameters in {small}–{large} B → InfiniBand",
    "rule_large_params": "seed rule: {params} B parameters > {large} B → InfiniBand",
    "rule_budget": "seed rule: tight budget and good existing Ethernet → RoCE",
    "rule_weak_ops": "seed rule: weak operations team → RoCE",
    "rule_strong_ops": "seed rule: strong operations team wanting zero interruptions → InfiniBand",
    "none_fits": "no fabric fits the yearly plan; the cheapest per run is chosen",
    "family_missing": "the rule's family ({family}) is not among the compared fabrics",
    "cheaper": ("cost model: {best} is cheaper than the rule's {rule} by {gap} ({metric}); largest "
                "differences ({rule} minus {best}): {parts}"),
    "run_length": ("run length {rule} {rule_days:.2f} d vs {best} {best_days:.2f} d; exposed communication per "
                   "step {rule_exposed:.3f} s vs {best_exposed:.3f} s"),
    "rule_no_fit": "{rule} cannot fit the yearly plan",
    "agrees": "cost model agrees: {best} is the cheapest ({metric})",
}


@dataclass(frozen=True)
class Reason:
    """One reason: a code of :data:`REASONS` and the values it names."""

    code: str
    values: dict

    def __str__(self) -> str:
        return REASONS[self.code].format(**self.values)


@dataclass(frozen=True)
class Recommendation:
    rule_family: str
    rule: str | None  # fabric id of the rule's family in the comparison (cheapest of it)
    cost_optimal: str
    metric: str  # "work_cost", "tco_total" or "cost_per_run"
    reason_codes: list[Reason] = field(default_factory=list)
    #: the best fabric for the scenario's own node count (every fabric on the same cluster), and the
    #: metric it is ranked by ("tco_total", or "cost_per_run" when the cluster is always busy or none fits)
    fixed_pick: str | None = None
    fixed_metric: str = "tco_total"

    @property
    def reasons(self) -> list[str]:
        """The reasons in English."""
        return [str(r) for r in self.reason_codes]


def seed_rule(nodes: int, params_b: float, budget_tight: bool, existing_ethernet: bool,
              ops_team: str, catalog: Catalog | None = None) -> tuple[str, list[Reason]]:
    """The article's decision tree → (family, reasons).

    More than 32 nodes means InfiniBand whatever else holds. Otherwise each rule (nodes, model
    size, budget with existing Ethernet, ops team) casts a vote; the majority wins and the node
    rule breaks a tie.

    >>> seed_rule(64, 5, True, True, "weak")[0]
    'infiniband'
    >>> seed_rule(8, 5, False, False, "strong")[0]
    'roce'
    """
    tier = tiers(catalog)
    small_nodes, large_nodes = tier["SMALL_NODES"], tier["LARGE_NODES"]
    small_params_b, large_params_b = tier["SMALL_PARAMS_B"], tier["LARGE_PARAMS_B"]
    node_tiers = {"small": small_nodes, "large": large_nodes}
    if nodes > large_nodes:
        return "infiniband", [Reason("rule_large", {"nodes": nodes, **node_tiers})]
    votes, reasons = [], []

    def vote(family: str, code: str, **values) -> None:
        votes.append(family)
        reasons.append(Reason(code, values))

    if nodes <= small_nodes:
        vote("roce", "rule_small_nodes", nodes=nodes, **node_tiers)
    elif budget_tight:
        vote("roce", "rule_mid_tight", nodes=nodes, **node_tiers)
    else:
        vote("infiniband", "rule_mid", nodes=nodes, **node_tiers)
    sizes = {"params": f"{params_b:g}", "small": f"{small_params_b:g}", "large": f"{large_params_b:g}"}
    if params_b <= small_params_b:
        vote("roce", "rule_small_params", **sizes)
    elif params_b <= large_params_b:
        vote("infiniband", "rule_mid_params", **sizes)
    else:
        vote("infiniband", "rule_large_params", **sizes)
    if budget_tight and existing_ethernet:
        vote("roce", "rule_budget")
    if ops_team == "weak":
        vote("roce", "rule_weak_ops")
    else:
        vote("infiniband", "rule_strong_ops")
    roce, ib = votes.count("roce"), votes.count("infiniband")
    family = votes[0] if roce == ib else ("roce" if roce > ib else "infiniband")
    return family, reasons


def fixed_cluster_pick(ids, tco, cost_per_run, fits, schedule) -> tuple[str, str]:
    """The best fabric on the scenario's own cluster → (fabric id, metric): the lowest TCO among the
    fabrics that fit the yearly plan (cost per run when the cluster is always busy, or when none fits).

    >>> fixed_cluster_pick(["a", "b"], [5.0, 3.0], [1.0, 2.0], [True, False], "plan")
    ('a', 'tco_total')
    >>> fixed_cluster_pick(["a", "b"], [5.0, 3.0], [1.0, 2.0], [True, True], "always_busy")
    ('a', 'cost_per_run')
    """
    fits = np.asarray(fits, dtype=bool)
    metric = "cost_per_run" if schedule == "always_busy" or not fits.any() else "tco_total"
    values = np.asarray(cost_per_run if metric == "cost_per_run" else tco, dtype=float)
    pool = np.where(fits, values, np.inf) if fits.any() else values
    return ids[int(np.argmin(pool))], metric


def recommend(ids, families, tco, cost_per_run, fits, breakdown, metrics, schedule,
              rule_family, rule_reasons, fmt=lambda x: f"{x:,.0f}", work_cost=None,
              work_breakdown=None) -> Recommendation:
    """Combine the seed rule with the cost-optimal fabric (arrays of shape ``(F,)``).

    The cost-optimal fabric is ranked by the cost of the same work (``work_cost``: each fabric's
    cluster sized to deliver the plan, :mod:`costmodel.pipeline.equal_work`) when some fabric can deliver
    it; otherwise by TCO among the fabrics that fit the plan (cost per run when the cluster is
    always busy, or when none fits). The recommendation names the metric it ranks by.
    """
    fixed_pick, fixed_metric = fixed_cluster_pick(ids, tco, cost_per_run, fits, schedule)
    metric_name = "cost_per_run" if schedule == "always_busy" else "tco_total"
    values = np.asarray(cost_per_run if metric_name == "cost_per_run" else tco, dtype=float)
    fits = np.asarray(fits, dtype=bool)
    work = None if work_cost is None else np.asarray(work_cost, dtype=float)
    if work is not None and np.isfinite(work).any():
        metric_name, values, fits = "work_cost", work, np.isfinite(work)
        breakdown = work_breakdown
    reasons = list(rule_reasons)
    pool = np.where(fits, values, np.inf)
    if not fits.any():
        metric_name = "cost_per_run"
        values = pool = np.asarray(cost_per_run, dtype=float)
        reasons.append(Reason("none_fits", {}))
    best = int(np.argmin(pool))
    in_family = [i for i, fam in enumerate(families) if fam == rule_family]
    rule_idx = min(in_family, key=lambda i: pool[i]) if in_family else None
    if rule_idx is None:
        reasons.append(Reason("family_missing", {"family": rule_family}))
    elif rule_idx != best:
        diff = {k: float(breakdown[k][rule_idx] - breakdown[k][best]) for k in breakdown}
        top = sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:3]
        parts = ", ".join(f"{k} {'+' if v >= 0 else '−'}{fmt(abs(v))}" for k, v in top)
        pair = {"best": ids[best], "rule": ids[rule_idx]}
        reasons.append(Reason("cheaper", {**pair, "gap": fmt(values[rule_idx] - values[best]),
                                          "gap_value": float(values[rule_idx] - values[best]),
                                          "metric": metric_name, "parts": parts,
                                          "diffs": dict(top)}))
        reasons.append(Reason("run_length", {
            **pair, "rule_days": float(metrics["run_days"][rule_idx]), "best_days": float(metrics["run_days"][best]),
            "rule_exposed": float(metrics["exposed_comm_s"][rule_idx]),
            "best_exposed": float(metrics["exposed_comm_s"][best])}))
        if not fits[rule_idx]:
            reasons.append(Reason("rule_no_fit", {"rule": ids[rule_idx]}))
    else:
        reasons.append(Reason("agrees", {"best": ids[best], "metric": metric_name}))
    return Recommendation(
        rule_family=rule_family,
        rule=None if rule_idx is None else ids[rule_idx],
        cost_optimal=ids[best],
        metric=metric_name,
        reason_codes=reasons,
        fixed_pick=fixed_pick,
        fixed_metric=fixed_metric,
    )
