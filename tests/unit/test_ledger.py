"""The money ledger: one formula per cost category, evaluated by numpy and printed for Excel."""

from __future__ import annotations

import dataclasses

import formulas
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import costmodel
from costmodel.money import finance, ledger, unit_cost
from costmodel.pipeline.inputs import Inputs, build
from costmodel.pipeline.tco import CATEGORIES, compute

INPUT_NAMES = {f.name for f in dataclasses.fields(Inputs)}
DRIVERS = {"scope_cluster", "horizon", "endpoints", "switches", "reused_switches", "dac_cables", "aec_cables",
           "aoc_cables", "switch_modules", "node_modules", "module_port_ratio", "fibre_links", "links",
           "frontend_nodes", "kwh_network", "spare_nodes", "cooled_kw",
           "kwh_site", "cpu_share", "busy_h", "lost_h", "wait_h", "vch"}


def _excel_value(expr, env: dict, consts: dict | None = None) -> float:
    """The value of ``expr`` printed as Excel text (names as references) and computed by the
    ``formulas`` engine with the references set from ``env``."""
    names = sorted(expr.names() - set(consts or {}))
    text = expr.excel({n: f"Q_{n}" for n in names}, consts)
    if "Q_" not in text:  # folded to a number
        return float(text)
    fn = formulas.Parser().ast("=" + text)[1].compile()
    args = [env[k.removeprefix("Q_").lower()] for k in fn.inputs]
    return float(np.asarray(fn(*args)).ravel()[0])


def test_every_category_is_a_ledger_entry_and_reads_only_inputs_and_drivers():
    assert CATEGORIES == ("compute_capex", "network_capex", "cooling_capex", "energy", "cpu_overhead",
                          "network_wait", "interruptions", "operations")
    for e in ledger.ENTRIES:
        assert e.formula.names() <= INPUT_NAMES | DRIVERS | set(ledger.LEDGER), e.key
        assert ledger.expanded(e.key).names() <= INPUT_NAMES | DRIVERS, e.key


def test_the_model_drivers_are_exactly_the_names_the_ledger_reads_besides_inputs():
    """The ledger's names, and those of the cost of a run (less the cash total and horizon the metrics
    stage gives it, and the figures it computes itself)."""
    built = build(costmodel.load_preset("seed-intro-32xA100"))
    out = compute(built.inputs, built.structure)
    read = set().union(*(ledger.expanded(c).names() for c in CATEGORIES))
    per_run = set().union(*(f.names() for f in unit_cost.STEPS.values())) - set(unit_cost.STEPS)
    assert set(out.drivers) == (read | per_run) - INPUT_NAMES - {"cash_total", "horizon"}


@pytest.mark.parametrize("preset", ["seed-case2-24xA100", "seed-intro-32xA100"])  # fabric and cluster scope
def test_ledger_amounts_equal_the_categories_written_out_by_hand(preset):
    """The ledger's numbers against the categories' definitions in docs/model.md, typed here."""
    built = build(costmodel.load_preset(preset))
    p, stc = built.inputs, built.structure
    out = compute(p, stc)
    d, m = out.drivers, out.metrics
    cluster = stc.scope == "cluster"
    n = p.nodes
    links = (d["dac_cables"] * p.cable_price + d["aec_cables"] * p.aec_price + d["aoc_cables"] * p.aoc_price
             + (d["switch_modules"] + d["node_modules"] * d["module_port_ratio"]) * p.optic_price
             + d["fibre_links"] * p.fibre_price)
    hardware = d["endpoints"] * p.nic_price + d["switches"] * p.switch_price + links
    network = (hardware - d["reused_switches"] * p.switch_price + n * p.install_per_node
               + d["links"] * p.install_per_link + cluster * p.frontend_network * n * p.frontend_per_node)
    staff = (p.ops_factor * (p.network_staff_fte * p.staff_cost_per_fte_year + n * p.network_ops_per_node_year)
             + cluster * (p.cluster_staff_fte * p.staff_cost_per_fte_year + n * p.cluster_ops_per_node_year))
    lost = m["lost_hours_per_year"] if cluster else m["network_lost_hours_per_year"]
    want = {
        # servers and hot spares, ⌈share · N⌉ whole servers (reliability by fabric)
        "compute_capex": (n + np.ceil(p.hot_spare_node_frac * n - 1e-9)) * p.server_price * cluster,
        "network_capex": network,
        # cooling built for the peak IT power: the network's, and the servers' at TDP plus host in cluster scope
        "cooling_capex": p.build_cooling * p.cooling_capex_per_kw * (
            m["network_power_kw"] + cluster * n * (p.gpus_per_node * p.gpu_tdp_kw + p.host_power_kw)),
        "energy": (d["kwh_network"] + d["kwh_site"]) * p.pue * p.electricity_price,
        # time valued one way: the CPU's cost share of each busy cluster-hour at the value of a cluster-hour
        "cpu_overhead": m["cpu_overhead_share"] * (
            p.host_cpu_cost_share * m["busy_hours_per_year"] * m["value_of_cluster_hour"]
            + n * p.host_power_kw * p.host_cpu_power_share * m["busy_hours_per_year"] * p.pue * p.electricity_price),
        "network_wait": m["busy_hours_per_year"] * m["exposed_comm_s"] / m["step_time_s"]
        * m["value_of_cluster_hour"],
        "interruptions": lost * m["value_of_cluster_hour"],
        "operations": p.maintenance_frac * (network + cluster * n * p.server_price)
        + p.support_frac * hardware + staff,
    }
    for cat, value in want.items():
        np.testing.assert_allclose(out.amounts[cat], np.broadcast_to(value, out.tco.shape), rtol=1e-12)
    np.testing.assert_allclose(d["kwh_network"], m["network_power_kw"] * 8760, rtol=1e-12)


_positive = st.floats(0.01, 1e4, allow_nan=False)


@settings(max_examples=25, deadline=None)
@given(values=st.lists(_positive, min_size=40, max_size=40), scope=st.sampled_from([0.0, 1.0]))
def test_the_excel_text_of_every_entry_computes_what_numpy_computes(values, scope):
    """Printing keeps the operators' grouping: the spreadsheet formula gives the numpy value."""
    for e in ledger.ENTRIES:
        expr = ledger.expanded(e.key)
        env = dict(zip(sorted(expr.names()), values, strict=False)) | {"horizon": 5.0, "scope_cluster": scope}
        got = _excel_value(expr, env, {"horizon": 5.0})
        assert got == pytest.approx(float(expr.evaluate(env)), rel=1e-12), e.key


@settings(max_examples=40, deadline=None)
@given(rate=st.floats(0.0, 0.3), months=st.integers(1, 120), residual=st.floats(0.0, 0.5),
       horizon=st.integers(1, 10), payment=st.sampled_from(["upfront", "instalments"]))
def test_the_excel_schedule_is_the_model_schedule(rate, months, residual, horizon, payment):
    """PMT, the instalment months of each year and resale: spreadsheet and numpy agree, year by year."""
    model = finance.capex_schedule(horizon, payment, months, rate, residual)
    env = {"instalment_rate": rate, "instalment_months": float(months), "residual_frac": residual}
    for year in range(horizon + 1):
        text_value = _excel_value(ledger.capex_formula(payment), env, {"year": year, "horizon": horizon})
        assert text_value == pytest.approx(model[year], rel=1e-12, abs=1e-15)
    assert ledger.recurring_schedule(horizon).tolist() == [0.0] + [1.0] * horizon


def test_instalments_charge_interest_through_pmt():
    """24 months at 12 %/year: 24 × PMT(1 %, 24, 1) = 1.1297 units paid over two years."""
    sched = ledger.capex_schedule(3, "instalments", {"instalment_rate": 0.12, "instalment_months": 24.0,
                                                     "residual_frac": 0.0})
    assert sched.sum() == pytest.approx(24 * 0.0470734722, rel=1e-9)
    assert sched.tolist()[0] == 0.0 and sched.tolist()[3] == 0.0
