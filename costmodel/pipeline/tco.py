"""TCO assembly: one vectorised pass from :class:`~costmodel.pipeline.inputs.Inputs` to every result.

``compute(inputs, structure)`` is the single code path behind ``evaluate`` (S = 1), ``sweep``
(S = node counts) and ``monte_carlo`` (S = draws). Every output is an array of shape
``(S, F)``; cash flows are kept as per-category amounts times a year schedule, so totals and
NPV need no ``(S, F, years)`` array unless yearly figures are asked for.

Money is in the price book's currency; energy in kWh; time in hours unless named ``_s``.
Cost categories (the breakdown): ``compute_capex``, ``network_capex``, ``energy``,
``cpu_overhead``, ``network_wait``, ``interruptions``, ``operations``. Three of them value
cluster time, one way, at the value of a cluster-hour (:data:`costmodel.money.ledger.TIME_CATEGORIES`):
the host CPU the transport takes, the hours the GPUs wait on the network, and the hours lost to
interruptions. They are opportunity costs, not cash: ``cash_total`` leaves them out and
per-unit figures (cost per run, per million tokens, per useful GPU-hour) use it, because
slowness and lost time already show there as fewer runs. In ``fabric`` scope only what the network
causes is counted: network capex, network power plus the cluster's power while it waits for
the network, CPU overhead, network-caused interruptions, network maintenance and staff.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from costmodel.money import bom as bom_lines
from costmodel.money.ledger import CAPEX_CATEGORIES, CATEGORIES
from costmodel.pipeline.inputs import Inputs, Structure
from costmodel.pipeline.stages.after_tax import AfterTax, after_tax
from costmodel.pipeline.stages.batch import batch_nodes, fields_of, float_inputs, take_rows
from costmodel.pipeline.stages.carbon import carbon
from costmodel.pipeline.stages.cash_flows import cash_flows
from costmodel.pipeline.stages.cost_rates import cost_rates
from costmodel.pipeline.stages.metrics import metrics
from costmodel.pipeline.stages.reliability import reliability
from costmodel.pipeline.stages.schedule import schedule
from costmodel.pipeline.stages.step_time import step_time
from costmodel.pipeline.stages.topology import topology

__all__ = ["CAPEX_CATEGORIES", "CATEGORIES", "Modes", "Outputs", "compute"]


@dataclass(frozen=True)
class Modes:
    """Per-row choices for a batch that mixes them, each a boolean array of shape ``(S, 1)``: rows
    run back to back all year (``always_busy``, else the plan), rows costed in ``fabric`` scope
    (else the whole cluster). One :func:`compute` call then serves the scenario, its always-busy
    twin and the equal-work node grid at once (:func:`costmodel.api.evaluate`)."""

    always_busy: np.ndarray
    fabric_scope: np.ndarray


@dataclass(frozen=True)
class Outputs:
    """Every model result, arrays of shape ``(S, F)`` unless noted."""

    structure: Structure
    amounts: dict[str, np.ndarray]  # per category: capex total, or recurring cost per year
    capex_schedule: np.ndarray  # (S, F, H+1) share of capex paid each year
    recurring_schedule: np.ndarray  # (H+1,)
    discount: np.ndarray  # (S, F, H+1)
    tco: np.ndarray
    pv_cost: np.ndarray
    breakdown: dict[str, np.ndarray]  # per category, summed over the horizon
    metrics: dict[str, np.ndarray]
    drivers: dict[str, np.ndarray | float]  # the non-input names the ledger reads
    bom: dict[str, np.ndarray]  # bill of materials: items installed and spares, see stages.topology.BOM_KEYS
    bom_priced: dict[str, bom_lines.Line]  # the priced bill (costmodel.money.bom.LINES); adds up to network capex
    running: dict[str, np.ndarray]  # the network's yearly running costs (costmodel.money.bom.RUNNING) [currency/year]
    # (both empty when computed with lines=False)
    taxes: AfterTax | None = None  # depreciation, deductions, tax shield, after-tax totals
    bom_facility: dict[str, bom_lines.Line] = dataclasses.field(default_factory=dict)  # bom.FACILITY_LINES

    def rows(self, rows: slice, *, lines: bool = True) -> Outputs:
        """The outputs of the batch rows ``rows`` only (views, no copies); ``lines=False``: without the
        priced BOM, running lines and taxes, as :func:`compute` leaves them for batches that read totals."""
        n = self.tco.shape[0]
        skip = {} if lines else {"bom_priced": {}, "running": {}, "taxes": None, "bom_facility": {}}
        return Outputs(**{f.name: skip[f.name] if f.name in skip else getattr(self, f.name) if f.name == "structure"
                          else take_rows(getattr(self, f.name), rows, n) for f in dataclasses.fields(self)})

    def yearly(self) -> dict[str, np.ndarray]:
        """Cost per category and year, arrays of shape ``(S, F, H+1)``."""
        out = {}
        for cat, amount in self.amounts.items():
            sched = self.capex_schedule if cat in CAPEX_CATEGORIES else self.recurring_schedule
            out[cat] = amount[..., None] * sched
        return out

    def yearly_total(self) -> np.ndarray:
        """Total cost per year, ``(S, F, H+1)``: the capex categories' sum times the capex schedule plus
        the recurring ones' sum times the recurring schedule (two products, not one per category)."""
        capex = sum(a for c, a in self.amounts.items() if c in CAPEX_CATEGORIES)
        recurring = sum(a for c, a in self.amounts.items() if c not in CAPEX_CATEGORIES)
        return (np.asarray(capex)[..., None] * self.capex_schedule
                + np.asarray(recurring)[..., None] * self.recurring_schedule)

    def yearly_tax(self) -> dict[str, np.ndarray]:
        """Per year, ``(S, F, H+1)`` [currency]: ``depreciation`` (capex written off),
        ``deductions`` (depreciation, instalment interest and recurring costs), ``tax_shield``
        (tax rate × deductions) and ``total_after_tax`` (total − shield)."""
        sched, a = self.taxes.schedules, self.amounts
        dep = sum(a[c][..., None] * sched[f"dep:{c}"] for c in CAPEX_CATEGORIES)
        ded = sum(a[c][..., None] * sched[c] for c in CATEGORIES)
        tau = self.taxes.tax_rate[..., None]
        shield = np.where(tau > 0, tau * ded, 0.0)
        return {"depreciation": dep, "deductions": ded, "tax_shield": shield,
                "total_after_tax": self.yearly_total() - shield}


def compute(p: Inputs, st: Structure, modes: Modes | None = None, *, lines: bool = True) -> Outputs:
    """Evaluate the whole model for every row and fabric: the stages of :mod:`costmodel.pipeline.stages`.

    Inputs at their own shapes (:func:`~costmodel.pipeline.stages.batch.batch_nodes`); topology → step
    time → reliability → schedule → cost rates (the ledger) → cash flows → metrics; results broadcast to
    ``(S, F)``. ``modes``: each row's own schedule and scope; ``lines=False``: no priced BOM or running
    lines (batches that read totals only).
    """
    own = float_inputs(p)  # each input at its own shape: what a batch varies has more than one row
    p, shape = batch_nodes(own)
    topo = topology(own)
    step = step_time(p, topo, search=st.parallelism == "best")
    rel = reliability(p, topo)
    sched = schedule(p, step, rel, st.schedule if modes is None else modes.always_busy)
    rates = cost_rates(p, topo, step, rel, sched, st.scope if modes is None else modes.fabric_scope, st.horizon_years)
    flows = cash_flows(p, rates.amounts, st.horizon_years, st.payment)
    figures = metrics(p, topo, step, rel, sched, rates, flows, st.horizon_years)
    env = fields_of(p)
    taxes, extra = _finance_and_carbon(p, rates, flows, sched, st)
    return _grown(Outputs(
        structure=st, amounts={c: rates.amounts[c] for c in CATEGORIES},
        capex_schedule=flows.capex_schedule, recurring_schedule=flows.recurring_schedule,
        discount=flows.discount, tco=flows.tco, pv_cost=flows.pv_cost, breakdown=flows.breakdown,
        metrics=dict(figures.values) | extra, drivers=rates.drivers, bom=dict(topo.bom), taxes=taxes,
        bom_priced=bom_lines.priced(rates.drivers, env, flows.tco.shape) if lines else {},
        running=bom_lines.running(rates.amounts, env, flows.tco.shape) if lines else {},
        bom_facility=bom_lines.facility(rates.drivers, env, flows.tco.shape) if lines else {},
    ), shape)


def _finance_and_carbon(p: Inputs, rates, flows, sched, st: Structure):
    """The after-tax cash flows and the metrics they and the carbon add (tco_after_tax, npv_after_tax,
    tax_shield, depreciation [currency]; CO₂ per year and per run [kg])."""
    taxes = after_tax(p, rates.amounts, flows, st.horizon_years, st.payment)
    extra = {"tco_after_tax": taxes.tco_after_tax, "npv_after_tax": -taxes.pv_cost_after_tax,
             "tax_shield": taxes.tax_shield, "depreciation": taxes.depreciation,
             **carbon(rates.amounts["co2_kg"], sched.runs_per_year, st.horizon_years)}
    return taxes, extra


def _grown(v, shape: tuple[int, int]):
    """``v`` with every array of two or more dimensions broadcast to ``shape`` on its first two axes."""
    if isinstance(v, np.ndarray):
        return np.broadcast_to(v, shape + v.shape[2:]) if v.ndim >= 2 and v.shape[:2] != shape else v
    if isinstance(v, dict):
        return {k: _grown(x, shape) for k, x in v.items()}
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return dataclasses.replace(v, **{f.name: _grown(getattr(v, f.name), shape)
                                         for f in dataclasses.fields(v) if f.init})
    return v
