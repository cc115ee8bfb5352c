"""Stage 6, cash flows: payment schedules, totals over the horizon and present values."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costmodel.arrays import compact
from costmodel.money import finance, ledger
from costmodel.pipeline.inputs import Inputs


@dataclass(frozen=True)
class CashFlows:
    """Schedules and totals; ``breakdown`` per category [currency], arrays ``(S, F)`` unless noted."""

    capex_schedule: np.ndarray  # share of capex paid each year, net of resale; broadcasts to (S, F, H+1)
    recurring_schedule: np.ndarray  # (H+1,)
    discount: np.ndarray  # discount factor of each year; broadcasts to (S, F, H+1)
    breakdown: dict[str, np.ndarray]  # per category, summed over the horizon
    tco: np.ndarray  # [currency]
    pv_cost: np.ndarray  # present value of the costs [currency]


def cash_flows(p: Inputs, amounts: dict[str, np.ndarray], horizon_years: int, payment: str) -> CashFlows:
    """Spread each category over the years 0..H and sum, plain and discounted.

    Parameters
    ----------
    p : Inputs
        Broadcast inputs: ``discount_rate``, ``instalment_rate`` [1/year], ``instalment_months``,
        ``residual_frac`` [0-1].
    amounts : dict
        The ledger's amounts (:class:`~costmodel.pipeline.stages.cost_rates.CostRates`).
    horizon_years : int
    payment : str
        ``upfront`` or ``instalments``.

    Returns
    -------
    CashFlows

    Notes
    -----
    Cost in year ``t`` = amount × ``s(t)``, with ``s`` the ledger's capex schedule
    (:func:`costmodel.money.ledger.capex_formula`) for capex categories and ``0, 1, …, 1`` for
    recurring ones. TCO ``= Σ_c amount_c Σ_t s_c(t)``; PV ``= Σ_c amount_c Σ_t s_c(t) (1+r)^−t``.
    Schedules and discount factors are computed once per distinct finance input
    (:func:`~costmodel.arrays.compact`): a sweep over node counts has one schedule.

    References
    ----------
    .. [1] L.J. Gitman, Principles of Managerial Finance, Brief, 3rd ed., 2003, pp. 346-348.
    """
    env = {"instalment_rate": compact(p.instalment_rate), "instalment_months": compact(p.instalment_months),
           "residual_frac": compact(p.residual_frac)}
    cap_sched = ledger.capex_schedule(horizon_years, payment, env)
    rec_sched = ledger.recurring_schedule(horizon_years)
    disc = finance.discount_factors(compact(p.discount_rate), horizon_years)
    cap_total = cap_sched.sum(axis=-1)
    cap_pv = (cap_sched * disc).sum(axis=-1)
    rec_total = float(rec_sched.sum())
    rec_pv = (rec_sched * disc).sum(axis=-1)
    breakdown, tco, pv = {}, 0.0, 0.0
    for cat in ledger.CATEGORIES:
        is_capex = cat in ledger.CAPEX_CATEGORIES
        breakdown[cat] = amounts[cat] * (cap_total if is_capex else rec_total)
        tco = tco + breakdown[cat]
        pv = pv + amounts[cat] * (cap_pv if is_capex else rec_pv)
    return CashFlows(capex_schedule=cap_sched, recurring_schedule=rec_sched, discount=disc,
                     breakdown=breakdown, tco=tco, pv_cost=pv)
