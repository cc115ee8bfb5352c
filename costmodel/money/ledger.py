"""The money ledger: every cost category and payment schedule defined once, as a formula.

The model evaluates these formulas with numpy (:func:`evaluate_amounts`,
:func:`capex_schedule`, :func:`recurring_schedule`); the Excel export prints the very same
formulas into the workbook (:meth:`costmodel.money.formula.Expr.excel`), so the workbook cannot drift
from the model. A category's cost in year ``t`` is ``amount × schedule(t)``: capex categories
follow :data:`CAPEX_SCHEDULE` (``UPFRONT`` or ``INSTALMENTS``, plus ``RESALE``), recurring ones
:data:`RECURRING`.

Names the formulas read (units): inputs of :class:`~costmodel.pipeline.inputs.Inputs` by field name, and

===================  ==================================================================
``scope_cluster``    1 when the whole cluster is costed, 0 in ``fabric`` scope [-]
``horizon``          years of operation ``H`` [year]
``year``             the year ``t`` = 0 … H (0 = purchase)
``endpoints``        NIC ports ``E`` [count]
``spare_nodes``      hot-spare servers bought ``⌈f N⌉`` [count]
``switches``         switches bought, spares included [count]
``reused_switches``  of those, switches already on site and reused (no capex) [count]
``dac_cables``       passive DAC cables bought, spares included [count]
``aec_cables``       active copper cables bought, spares included [count]
``aoc_cables``       active optical cables bought, spares included [count]
``switch_modules``   optical modules bought for switch cages, spares included [count]
``node_modules``     optical modules bought for server NICs, spares included [count]
``module_port_ratio`` ports of a server-side module / ports of a switch-side one [ratio]
``fibre_links``      fibre links installed (an optical module at each end) [count]
``links``            links installed, node and switch links of every class [count]
``frontend_nodes``   servers whose front-end / storage Ethernet is costed (0 in fabric scope) [count]
``cooled_kw``        peak IT power whose cooling is built for the cluster, 0 when not costed [kW]
``kwh_network``      network energy per year before PUE [kWh/year]
``kwh_site``         cluster energy counted in this scope per year before PUE [kWh/year]
``cpu_share``        share of host CPU taken by the transport [0-1]
``busy_h``           busy hours per year [h/year]
``lost_h``           cluster-hours lost to interruptions counted in this scope [h/year]
``wait_h``           cluster-hours the GPUs wait on the network (exposed communication) [h/year]
``vch``              value of one cluster-hour [currency/h]
===================  ==================================================================

Money is in the price book's currency.

Time is valued one way: every cluster-hour the network costs — waiting on it (``network_wait``),
lost to interruptions and restarts (``interruptions``), or the host CPU it takes
(``cpu_overhead``, the CPU's cost share of the hour) — is charged at ``vch``, the value of one
cluster-hour. These three are :data:`TIME_CATEGORIES`: opportunity costs, not cash.

References
----------
.. [1] numpy-financial ``pmt`` and the spreadsheet function ``PMT`` (same convention).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from costmodel.money.formula import IF, MAX, MIN, PMT, Expr, Name, Num, eq, gt

MONTHS_PER_YEAR = 12
#: below this monthly rate interest is immaterial and PMT loses precision: pay linearly
MIN_MONTHLY_RATE = 1e-9

_n = Name  # short for the formulas below

nodes, server_price, scope = _n("nodes"), _n("server_price"), _n("scope_cluster")
pue, price_kwh, horizon, year = _n("pue"), _n("electricity_price"), _n("horizon"), _n("year")


@dataclass(frozen=True)
class Entry:
    """One line of the ledger: ``key`` = ``formula``; ``kind`` is ``capex`` or ``recurring`` for
    a cost category (an amount once, or per year), ``part`` for a named piece of one."""

    key: str
    kind: str
    formula: Expr
    unit: str
    doc: str


ENTRIES: tuple[Entry, ...] = (
    Entry("capex_nics", "part", _n("endpoints") * _n("nic_price"), "currency", "NICs: E × NIC price"),
    Entry("capex_switches", "part", (_n("switches") - _n("reused_switches")) * _n("switch_price"), "currency",
          "(switches − reused switches) × switch price"),
    Entry("capex_links", "part",
          _n("dac_cables") * _n("cable_price") + _n("aec_cables") * _n("aec_price")
          + _n("aoc_cables") * _n("aoc_price")
          + (_n("switch_modules") + _n("node_modules") * _n("module_port_ratio")) * _n("optic_price")
          + _n("fibre_links") * _n("fibre_price"),
          "currency", "DACs, active copper cables and AOCs each at its class price, optical modules at the "
          "optic price (a switch-side module; a server-side one at the same price per port), fibre per fibre link"),
    Entry("capex_install", "part", nodes * _n("install_per_node") + _n("links") * _n("install_per_link"),
          "currency", "nodes × installation per node + links × installation per link"),
    # --- bill of materials: front end, licences and support, staff with a floor
    Entry("capex_frontend", "part", _n("frontend_nodes") * _n("frontend_per_node"), "currency",
          "front-end / storage Ethernet: servers × its price per server (cluster scope, when costed)"),
    Entry("network_hardware", "part",
          _n("capex_nics") + _n("switches") * _n("switch_price") + _n("capex_links"), "currency",
          "the compute fabric's hardware at its price, reused switches included (what support covers)"),
    Entry("network_support", "part", _n("support_frac") * _n("network_hardware"), "currency/year",
          "switch OS / fabric-manager licences and software support: share × network hardware"),
    Entry("staff", "part",
          _n("ops_factor") * (_n("network_staff_fte") * _n("staff_cost_per_fte_year")
                              + nodes * _n("network_ops_per_node_year"))
          + scope * (_n("cluster_staff_fte") * _n("staff_cost_per_fte_year")
                     + nodes * _n("cluster_ops_per_node_year")),
          "currency/year", "network staff (floor + per node) × ops factor + cluster staff (floor + per node)"),
    Entry("energy_kwh", "part", _n("kwh_network") * pue + _n("kwh_site") * pue, "kWh/year",
          "facility energy per year: (network + site share) × PUE"),
    # --- reliability by fabric: hot-spare servers, part of the servers' capex
    Entry("capex_hot_spares", "part", _n("spare_nodes") * server_price * scope, "currency",
          "hot-spare servers × server price, cluster scope only"),
    # ---
    Entry("compute_capex", "capex", nodes * server_price * scope + _n("capex_hot_spares"), "currency",
          "servers (hot spares included), cluster scope only"),
    Entry("network_capex", "capex",
          _n("capex_nics") + _n("capex_switches") + _n("capex_links") + _n("capex_install")
          + _n("capex_frontend"), "currency",
          "NICs + switches + links + installation + front-end Ethernet"),
    Entry("cooling_capex", "capex", _n("cooled_kw") * _n("cooling_capex_per_kw"), "currency",
          "cooling built for the cluster: peak IT power × cooling capex per kW (0 when the site's is in place)"),
    Entry("energy", "recurring", _n("energy_kwh") * price_kwh, "currency/year", "energy × electricity price"),
    Entry("cpu_overhead", "recurring",
          _n("cpu_share") * (_n("host_cpu_cost_share") * _n("busy_h") * _n("vch")
                             + nodes * _n("host_power_kw") * _n("host_cpu_power_share") * _n("busy_h")
                             * pue * price_kwh),
          "currency/year",
          "host CPU the transport takes: the CPU's cost share of each busy cluster-hour at the value of a "
          "cluster-hour, and its share of the CPU's power"),
    Entry("network_wait", "recurring", _n("wait_h") * _n("vch"), "currency/year",
          "cluster-hours waiting on the network × value of a cluster-hour"),
    Entry("interruptions", "recurring", _n("lost_h") * _n("vch"), "currency/year",
          "lost cluster-hours × value of a cluster-hour"),
    Entry("operations", "recurring",
          _n("maintenance_frac") * (_n("network_capex") + scope * nodes * server_price)
          + _n("network_support") + _n("staff"),
          "currency/year", "maintenance share of the capex maintained + licences and support + staff"),
    # --- finance and carbon: emissions of the facility energy
    Entry("co2_kg", "part", _n("energy_kwh") * _n("grid_kg_per_kwh"), "kg CO2e/year",
          "emissions per year: facility energy × grid emission factor"),
)
LEDGER: dict[str, Entry] = {e.key: e for e in ENTRIES}
#: the cost categories, in the order of the breakdown
CATEGORIES: tuple[str, ...] = tuple(e.key for e in ENTRIES if e.kind != "part")
CAPEX_CATEGORIES: tuple[str, ...] = tuple(e.key for e in ENTRIES if e.kind == "capex")
#: the categories that value cluster time at ``vch`` (opportunity costs, not cash)
TIME_CATEGORIES: tuple[str, ...] = ("cpu_overhead", "network_wait", "interruptions")

_rate, _months = _n("instalment_rate") / MONTHS_PER_YEAR, _n("instalment_months")
#: share of one unit of capex paid in ``year`` when bought outright
UPFRONT: Expr = IF(eq(year, 0), 1, 0)
#: monthly payments ``−PMT(i/12, M, 1)`` from month 1, summed per year (interest included)
INSTALMENTS: Expr = IF(eq(year, 0), 0,
                       IF(gt(_rate, MIN_MONTHLY_RATE), -PMT(_rate, _months, 1), 1 / _months)
                       * MIN(MONTHS_PER_YEAR, MAX(0, _months - MONTHS_PER_YEAR * (year - 1))))
#: resale at the end of the horizon, a negative share
RESALE: Expr = IF(eq(year, horizon), -_n("residual_frac"), 0)
#: one unit per operating year
RECURRING: Expr = IF(eq(year, 0), 0, 1)


def capex_formula(payment: str) -> Expr:
    """Share of one unit of capex paid in ``year``, net of resale, for ``upfront`` or ``instalments``."""
    return (INSTALMENTS if payment == "instalments" else UPFRONT) + RESALE


def excel_cash_flows(payment: str, horizon_years: int, refs: Mapping[str, str]) -> list[dict[str, str]]:
    """Per year 0..H, each category's cost as an Excel formula (with ``=``): its expanded
    formula × its schedule, ledger names replaced by the workbook's references ``refs``.

    >>> names = set().union(*(expanded(c).names() for c in CATEGORIES), capex_formula("upfront").names())
    >>> refs = {n: n.upper() for n in names}
    >>> for year in excel_cash_flows("upfront", 2, refs):
    ...     print(year["compute_capex"], year["interruptions"])
    =NODES*SERVER_PRICE*SCOPE_CLUSTER+SPARE_NODES*SERVER_PRICE*SCOPE_CLUSTER =LOST_H*VCH*0
    =(NODES*SERVER_PRICE*SCOPE_CLUSTER+SPARE_NODES*SERVER_PRICE*SCOPE_CLUSTER)*0 =LOST_H*VCH
    =(NODES*SERVER_PRICE*SCOPE_CLUSTER+SPARE_NODES*SERVER_PRICE*SCOPE_CLUSTER)*(-RESIDUAL_FRAC) =LOST_H*VCH
    """
    capex = capex_formula(payment)
    out = []
    for year in range(horizon_years + 1):
        consts = {"year": year, "horizon": horizon_years}
        out.append({c: "=" + (expanded(c) * (capex if c in CAPEX_CATEGORIES else RECURRING)).excel(refs, consts)
                    for c in CATEGORIES})
    return out


def expanded(key: str) -> Expr:
    """The formula of ``key`` with every other ledger entry it reads written out in full."""
    f = LEDGER[key].formula
    return _substitute(f)


def _substitute(f: Expr) -> Expr:
    from costmodel.money.formula import Call, Neg, Op

    if isinstance(f, Name):
        return _substitute(LEDGER[f.name].formula) if f.name in LEDGER else f
    if isinstance(f, Op):
        return Op(f.op, _substitute(f.a), _substitute(f.b))
    if isinstance(f, Neg):
        return Neg(_substitute(f.a))
    if isinstance(f, Call):
        return Call(f.fn, tuple(_substitute(a) for a in f.args))
    return f


def evaluate_amounts(env: Mapping[str, np.ndarray | float]) -> dict[str, np.ndarray]:
    """Every ledger entry evaluated in order on ``env`` (inputs and drivers); parts included."""
    values = dict(env)
    out = {}
    for e in ENTRIES:
        out[e.key] = values[e.key] = e.formula.evaluate(values)
    return out


def capex_schedule(horizon_years: int, payment: str, env: Mapping[str, np.ndarray | float]) -> np.ndarray:
    """Share of one unit of capex paid in each year 0..H (last axis), net of resale.

    ``env`` holds ``instalment_rate`` [1/year], ``instalment_months`` and ``residual_frac``
    (arrays broadcast; the year axis is appended).

    >>> env = {"instalment_rate": 0.0, "instalment_months": 24.0, "residual_frac": 0.1}
    >>> capex_schedule(3, "instalments", env).round(3).tolist()
    [0.0, 0.5, 0.5, -0.1]
    """
    years = np.arange(horizon_years + 1, dtype=float)
    yenv = {k: np.asarray(env[k], dtype=float)[..., None]
            for k in ("instalment_rate", "instalment_months", "residual_frac")}
    yenv.update(year=years, horizon=float(horizon_years))
    return np.asarray(capex_formula(payment).evaluate(yenv), dtype=float)


def recurring_schedule(horizon_years: int) -> np.ndarray:
    """One unit per operating year: 0 in year 0, 1 in years 1..H.

    >>> recurring_schedule(3).tolist()
    [0.0, 1.0, 1.0, 1.0]
    """
    years = np.arange(horizon_years + 1, dtype=float)
    return np.asarray(RECURRING.evaluate({"year": years}), dtype=float)


# --- finance and carbon: straight-line depreciation, deductions and the tax shield.
# A category's tax deduction in ``year`` is ``amount × deduction schedule``: recurring costs are
# deducted as they fall (:data:`RECURRING`; the two opportunity costs too, as forgone taxable
# income), capex by :func:`depreciation_formula` over its class life plus, when paid in
# instalments, the interest in each year's payments. The shield is ``tax_rate × deductions``.
#: the capex categories and the input naming each one's depreciation life [years]
DEPRECIATION_LIFE: dict[str, str] = {"compute_capex": "dep_years_servers", "network_capex": "dep_years_network",
                                     "cooling_capex": "dep_years_network"}
#: the inputs the deduction schedules read
TAX_NAMES = ("instalment_rate", "instalment_months", "residual_frac", "dep_years_servers", "dep_years_network")


def depreciation_formula(life: str) -> Expr:
    """Share of one unit of capex deducted as straight-line depreciation in ``year`` over ``life``
    years, net of salvage ``residual_frac``; what is not yet written off at the horizon is
    deducted in year ``H`` (the asset is sold at its salvage value), so the shares sum to
    ``1 − residual_frac`` for any life.
    """
    life_n = _n(life)
    base = 1 - _n("residual_frac")
    spread = (MIN(year, life_n) - MIN(year - 1, life_n)) / life_n
    rest = IF(eq(year, horizon), MAX(0, 1 - horizon / life_n), 0)
    return IF(eq(year, 0), 0, base * (spread + rest))


def interest_formula(payment: str) -> Expr:
    """Share of one unit of capex paid as interest in ``year`` (0 when paid up front): each year's
    instalments × (1 − 1 / total paid per unit), an even split of the interest over the payments."""
    if payment != "instalments":
        return Num(0.0)
    paid = IF(gt(_rate, MIN_MONTHLY_RATE), -PMT(_rate, _months, 1) * _months, 1)
    return INSTALMENTS * (1 - 1 / paid)


def deduction_formula(category: str, payment: str) -> Expr:
    """Share of one unit of ``category``'s amount deducted from taxable income in ``year``."""
    if category in DEPRECIATION_LIFE:
        return depreciation_formula(DEPRECIATION_LIFE[category]) + interest_formula(payment)
    return RECURRING


def deduction_schedules(horizon_years: int, payment: str, env: Mapping[str, np.ndarray | float]
                        ) -> dict[str, np.ndarray]:
    """Per category, the share of one unit deducted in each year 0..H (last axis), and under
    ``dep:<category>`` each capex category's depreciation alone; ``env`` holds the names of
    ``TAX_NAMES`` (arrays broadcast; the year axis is appended).

    >>> env = {"instalment_rate": 0.0, "instalment_months": 12.0, "residual_frac": 0.1,
    ...        "dep_years_servers": 3.0, "dep_years_network": 5.0}
    >>> d = deduction_schedules(4, "upfront", env)
    >>> d["compute_capex"].round(3).tolist(), d["network_capex"].round(3).tolist()
    ([0.0, 0.3, 0.3, 0.3, 0.0], [0.0, 0.18, 0.18, 0.18, 0.36])
    """
    years = np.arange(horizon_years + 1, dtype=float)
    yenv = {k: np.asarray(env[k], dtype=float)[..., None] for k in TAX_NAMES}
    yenv.update(year=years, horizon=float(horizon_years))
    shape = np.broadcast_shapes(*(yenv[k].shape for k in TAX_NAMES), years.shape)

    def ev(f: Expr) -> np.ndarray:
        return np.broadcast_to(np.asarray(f.evaluate(yenv), dtype=float), shape)

    out = {c: ev(deduction_formula(c, payment)) for c in CATEGORIES}
    out.update({f"dep:{c}": ev(depreciation_formula(life)) for c, life in DEPRECIATION_LIFE.items()})
    return out


def excel_capex_deductions(payment: str, horizon_years: int, refs: Mapping[str, str]) -> list[dict[str, str]]:
    """Per year 0..H, the capex categories' ``depreciation`` and instalment ``interest`` as Excel
    formulas (without ``=``), ledger names replaced by ``refs``; the recurring deductions are the
    recurring categories' own cells of the cash-flow sheet.

    >>> names = set().union(*(expanded(c).names() for c in DEPRECIATION_LIFE),
    ...                     *(depreciation_formula(n).names() for n in DEPRECIATION_LIFE.values()))
    >>> refs = {n: n.upper() for n in names}
    >>> excel_capex_deductions("upfront", 1, refs)[1]["interest"]
    '0'
    """
    out = []
    for y in range(horizon_years + 1):
        consts = {"year": y, "horizon": horizon_years}
        dep = sum((expanded(c) * depreciation_formula(life) for c, life in DEPRECIATION_LIFE.items()), Num(0.0))
        interest = (sum((expanded(c) for c in DEPRECIATION_LIFE), Num(0.0)) * interest_formula(payment)
                    ).excel(refs, consts) if payment == "instalments" else "0"
        out.append({"depreciation": dep.excel(refs, consts), "interest": interest})
    return out
