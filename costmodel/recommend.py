"""Two voices on which fabric to buy: the seed article's decision tree and the cost model.

The article's rule (its section 3.4) looks at node count, model size, budget and the ops team;
the cost model picks the cheapest fabric that fits the yearly plan. When they differ, the
reasons name the cost categories and performance figures that separate them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .catalog import load_catalog

_RULE = load_catalog().seed_rule  # the article's tier boundaries (defaults.yaml: seed_rule)
SMALL_NODES = int(_RULE["small_nodes"].typical)  # [nodes]
LARGE_NODES = int(_RULE["large_nodes"].typical)  # [nodes]
SMALL_PARAMS_B = _RULE["small_params_b"].typical  # [billion parameters]
LARGE_PARAMS_B = _RULE["large_params_b"].typical  # [billion parameters]


@dataclass(frozen=True)
class Recommendation:
    rule_family: str
    rule: str | None  # fabric id of the rule's family in the comparison (cheapest of it)
    cost_optimal: str
    metric: str  # "tco_total" or "cost_per_run"
    reasons: list[str] = field(default_factory=list)


def seed_rule(nodes: int, params_b: float, budget_tight: bool, existing_ethernet: bool,
              ops_team: str) -> tuple[str, list[str]]:
    """The article's decision tree → (family, reasons).

    More than 32 nodes means InfiniBand whatever else holds. Otherwise each rule (nodes, model
    size, budget with existing Ethernet, ops team) casts a vote; the majority wins and the node
    rule breaks a tie.

    >>> seed_rule(64, 5, True, True, "weak")[0]
    'infiniband'
    >>> seed_rule(8, 5, False, False, "strong")[0]
    'roce'
    """
    reasons = []
    if nodes > LARGE_NODES:
        reasons.append(f"seed rule: {nodes} nodes > {LARGE_NODES} → InfiniBand is the only choice")
        return "infiniband", reasons
    votes = []
    if nodes <= SMALL_NODES:
        votes.append("roce")
        reasons.append(f"seed rule: {nodes} nodes ≤ {SMALL_NODES} → RoCE")
    elif budget_tight:
        votes.append("roce")
        reasons.append(f"seed rule: {nodes} nodes in {SMALL_NODES}–{LARGE_NODES} with a tight budget → RoCE")
    else:
        votes.append("infiniband")
        reasons.append(f"seed rule: {nodes} nodes in {SMALL_NODES}–{LARGE_NODES} → InfiniBand")
    if params_b <= SMALL_PARAMS_B:
        votes.append("roce")
        reasons.append(f"seed rule: {params_b:g} B parameters ≤ {SMALL_PARAMS_B:g} B → RoCE")
    else:
        votes.append("infiniband")
        band = (f"> {LARGE_PARAMS_B:g} B" if params_b > LARGE_PARAMS_B
                else f"in {SMALL_PARAMS_B:g}–{LARGE_PARAMS_B:g} B")
        reasons.append(f"seed rule: {params_b:g} B parameters {band} → InfiniBand")
    if budget_tight and existing_ethernet:
        votes.append("roce")
        reasons.append("seed rule: tight budget and good existing Ethernet → RoCE")
    if ops_team == "weak":
        votes.append("roce")
        reasons.append("seed rule: weak operations team → RoCE")
    else:
        votes.append("infiniband")
        reasons.append("seed rule: strong operations team wanting zero interruptions → InfiniBand")
    roce, ib = votes.count("roce"), votes.count("infiniband")
    family = votes[0] if roce == ib else ("roce" if roce > ib else "infiniband")
    return family, reasons


def recommend(ids, families, tco, cost_per_run, fits, breakdown, metrics, schedule,
              rule_family, rule_reasons, fmt=lambda x: f"{x:,.0f}") -> Recommendation:
    """Combine the seed rule with the cost-optimal fabric (arrays of shape ``(F,)``)."""
    metric_name = "cost_per_run" if schedule == "always_busy" else "tco_total"
    values = np.asarray(cost_per_run if metric_name == "cost_per_run" else tco, dtype=float)
    fits = np.asarray(fits, dtype=bool)
    reasons = list(rule_reasons)
    pool = np.where(fits, values, np.inf)
    if not fits.any():
        metric_name = "cost_per_run"
        values = pool = np.asarray(cost_per_run, dtype=float)
        reasons.append("no fabric fits the yearly plan; the cheapest per run is chosen")
    best = int(np.argmin(pool))
    in_family = [i for i, fam in enumerate(families) if fam == rule_family]
    rule_idx = min(in_family, key=lambda i: pool[i]) if in_family else None
    if rule_idx is None:
        reasons.append(f"the rule's family ({rule_family}) is not among the compared fabrics")
    elif rule_idx != best:
        diff = {k: float(breakdown[k][rule_idx] - breakdown[k][best]) for k in breakdown}
        top = sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:3]
        parts = ", ".join(f"{k} {'+' if v >= 0 else '−'}{fmt(abs(v))}" for k, v in top)
        reasons.append(
            f"cost model: {ids[best]} is cheaper than the rule's {ids[rule_idx]} by "
            f"{fmt(values[rule_idx] - values[best])} ({metric_name}); largest differences "
            f"({ids[rule_idx]} minus {ids[best]}): {parts}"
        )
        rd, bd = metrics["run_days"][rule_idx], metrics["run_days"][best]
        reasons.append(
            f"run length {ids[rule_idx]} {rd:.2f} d vs {ids[best]} {bd:.2f} d; exposed "
            f"communication per step {metrics['exposed_comm_s'][rule_idx]:.3f} s vs "
            f"{metrics['exposed_comm_s'][best]:.3f} s"
        )
        if not fits[rule_idx]:
            reasons.append(f"{ids[rule_idx]} cannot fit the yearly plan")
    else:
        reasons.append(f"cost model agrees: {ids[best]} is the cheapest ({metric_name})")
    return Recommendation(
        rule_family=rule_family,
        rule=None if rule_idx is None else ids[rule_idx],
        cost_optimal=ids[best],
        metric=metric_name,
        reasons=reasons,
    )
