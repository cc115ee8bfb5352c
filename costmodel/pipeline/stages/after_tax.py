"""Stage 6b, after tax: depreciation, deductions, the income-tax shield and after-tax totals.

The deduction schedules are the money ledger's (:func:`costmodel.money.ledger.deduction_schedules`):
recurring costs are deducted as they fall, capex by straight-line depreciation net of salvage
over its class life (servers and network equipment), plus the interest of instalments. The tax
shield is ``tax_rate × deductions``; the after-tax cost is the pre-tax cost minus the shield.
Totals and present values are amounts × schedule sums (no ``(S, F, years)`` array), as in
:mod:`~costmodel.pipeline.stages.cash_flows`; with ``tax_rate = 0`` they equal the pre-tax figures exactly.

References
----------
.. [1] R.A. Brealey, S.C. Myers, F. Allen, Principles of Corporate Finance, 13th ed., 2020,
   ch. 6 (depreciation tax shield: tax rate × depreciation).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costmodel.arrays import compact
from costmodel.money import ledger
from costmodel.pipeline.inputs import Inputs
from costmodel.pipeline.stages.cash_flows import CashFlows


@dataclass(frozen=True)
class AfterTax:
    """Horizon totals, arrays ``(S, F)`` [currency]; ``schedules`` per category, ``(…, H+1)``."""

    schedules: dict[str, np.ndarray]  # share of one unit deducted each year, per category
    tax_rate: np.ndarray  # [0-1]
    depreciation: np.ndarray  # capex written off over the horizon: (capex − salvage)
    deductions: np.ndarray  # everything deducted from taxable income over the horizon
    tax_shield: np.ndarray  # tax_rate × deductions
    pv_tax_shield: np.ndarray
    tco_after_tax: np.ndarray  # TCO − tax shield
    pv_cost_after_tax: np.ndarray  # present value of the after-tax costs


def after_tax(p: Inputs, amounts: dict[str, np.ndarray], flows: CashFlows, horizon_years: int,
              payment: str) -> AfterTax:
    """Deductions, tax shield and after-tax totals of every row and fabric.

    Parameters
    ----------
    p : Inputs
        Broadcast inputs: ``tax_rate`` [0-1], ``dep_years_servers``, ``dep_years_network``
        [years], ``residual_frac`` [0-1], instalment terms.
    amounts : dict
        The ledger's amounts (capex [currency], recurring [currency/year]).
    flows : CashFlows
        The pre-tax cash flows (discount factors, TCO, PV).
    horizon_years : int
    payment : str

    Returns
    -------
    AfterTax

    Notes
    -----
    ``D = Σ_c amount_c Σ_t d_c(t)``, ``shield = τ D``, ``TCO_after = TCO − shield``,
    ``PV_after = PV − τ Σ_c amount_c Σ_t d_c(t) (1+r)^−t``.
    """
    env = {k: compact(getattr(p, k)) for k in ledger.TAX_NAMES}
    sched = ledger.deduction_schedules(horizon_years, payment, env)
    tau = p.tax_rate
    dep_total, ded_total, ded_pv = 0.0, 0.0, 0.0
    for cat in ledger.CATEGORIES:
        d = sched[cat]
        ded_total = ded_total + amounts[cat] * d.sum(axis=-1)
        ded_pv = ded_pv + amounts[cat] * (d * flows.discount).sum(axis=-1)
        if cat in ledger.DEPRECIATION_LIFE:
            dep_total = dep_total + amounts[cat] * sched[f"dep:{cat}"].sum(axis=-1)
    taxed = tau > 0
    shield = np.where(taxed, tau * ded_total, 0.0)
    pv_shield = np.where(taxed, tau * ded_pv, 0.0)
    return AfterTax(schedules=sched, tax_rate=tau, depreciation=np.broadcast_to(dep_total, flows.tco.shape),
                    deductions=np.broadcast_to(ded_total, flows.tco.shape), tax_shield=shield,
                    pv_tax_shield=pv_shield, tco_after_tax=flows.tco - shield,
                    pv_cost_after_tax=flows.pv_cost - pv_shield)
