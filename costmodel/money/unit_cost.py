"""What one run costs: the cluster's cash cost per hour of training, times the hours the run takes.

One figure per concept, whatever the scenario's schedule:

===========================  ====================================================================
``cost_per_cluster_hour``    the cash cost of the cluster kept training all year, over the
                             horizon's hours [currency/h]
``cost_per_run``             ``cost_per_cluster_hour × run_h``: the hours the run holds the whole
                             cluster (failures, restarts, checkpoints and setup included) [currency]
``cost_per_mtok``            ``cost_per_run ÷ (tokens per run / 10⁶)`` [currency]
===========================  ====================================================================

A run holds the cluster while it trains, so it is charged a training hour: the horizon's cash cost
(``cash_total``, the TCO less the opportunity costs of time) with the site's energy of a year kept
busy in place of the schedule's (``kwh_site_busy`` for ``kwh_site``). A yearly plan changes how many
runs a year are made, not what one costs: a fabric whose run takes longer on the same cluster costs
more per run unless its hour is cheaper in proportion. With the ``always_busy`` schedule the figure
is ``cash_total / (runs per year · H)``.

The model evaluates these formulas (:func:`evaluate`, :data:`STEPS`); the workbook prints them
(:meth:`costmodel.money.formula.Expr.excel`), so the two cannot drift apart.

Names the formulas read: ``cash_total`` [currency over the horizon], ``horizon`` [year],
``kwh_site`` and ``kwh_site_busy`` [kWh/year before PUE], ``pue``, ``electricity_price``
[currency/kWh], ``run_h`` [h], ``tokens_per_run`` [tokens].
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from costmodel.money.formula import Expr, Name

#: hours in a year [h] (a calendar fact, not a default)
HOURS_PER_YEAR = 8760.0
#: tokens in a million
MEGA = 1e6

_n = Name

#: each figure by name, computed in this order; a formula may read the figures before it
STEPS: dict[str, Expr] = {
    # the cash cost of the horizon with the cluster training every hour [currency]
    "busy_cash": _n("cash_total") + _n("horizon") * (_n("kwh_site_busy") - _n("kwh_site")) * _n("pue")
    * _n("electricity_price"),
    "cost_per_cluster_hour": _n("busy_cash") / (HOURS_PER_YEAR * _n("horizon")),
    "cost_per_run": _n("cost_per_cluster_hour") * _n("run_h"),
    "cost_per_mtok": _n("cost_per_run") / (_n("tokens_per_run") / MEGA),
}
#: the figures the model reports (metrics of the same names)
FIGURES: tuple[str, ...] = ("cost_per_cluster_hour", "cost_per_run", "cost_per_mtok")


def evaluate(env: Mapping[str, np.ndarray | float]) -> dict[str, np.ndarray]:
    """Every figure of :data:`STEPS` on ``env`` (arrays broadcast); ∞ where a run never ends.

    >>> env = {"cash_total": 8760.0 * 5, "horizon": 5.0, "kwh_site": 10.0, "kwh_site_busy": 10.0,
    ...        "pue": 1.2, "electricity_price": 0.1, "run_h": 24.0, "tokens_per_run": 2e6}
    >>> {k: float(v) for k, v in evaluate(env).items() if k in FIGURES}
    {'cost_per_cluster_hour': 1.0, 'cost_per_run': 24.0, 'cost_per_mtok': 12.0}
    """
    values, out = dict(env), {}
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for key, formula in STEPS.items():
            out[key] = values[key] = np.asarray(formula.evaluate(values), dtype=float)
    return out


__all__ = ["FIGURES", "HOURS_PER_YEAR", "MEGA", "STEPS", "evaluate"]
