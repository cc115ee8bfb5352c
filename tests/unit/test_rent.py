"""Own vs rent (costmodel.analysis.rent): the rental table's data, the formulas against the result's own
figures, the reference fabric, currency, refusals, and the monotonic properties the issue asks for."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import scenarios

import costmodel
from costmodel.analysis import rent
from costmodel.catalog.currency import reference_rate
from costmodel.catalog.loader import CatalogError, load_catalog

CAT = load_catalog()
TABLE = rent.load_rental_table()
INTRO = "seed-intro-32xA100"
CASE3 = "seed-case3-128xH100"


@functools.cache
def evaluated(preset: str):
    sc = costmodel.load_preset(preset)
    return sc, costmodel.evaluate(sc)


def scaled(table: rent.RentalTable, k: float) -> rent.RentalTable:
    """The table with every price times ``k``."""
    gpus = {g: {c: q.model_copy(update={"typical": q.typical * k, "low": q.lo * k, "high": q.hi * k})
                for c, q in by.items()} for g, by in table.gpus.items()}
    return table.model_copy(update={"gpus": gpus})


# --- the data

def test_the_table_covers_the_training_gpus_in_every_class_with_known_sources():
    assert {"a100-40", "a100-80", "h100", "h200", "b200"} <= set(TABLE.gpus)
    assert TABLE.classes == ("hyperscaler_on_demand", "hyperscaler_committed", "specialist")
    for by in TABLE.gpus.values():
        for q in by.values():
            assert q.source in CAT.references and CAT.references[q.source].url
            assert 0 < q.lo <= q.typical <= q.hi < 50  # USD per GPU-hour


def test_committed_prices_are_the_on_demand_price_times_the_stated_factor():
    f = TABLE.commitment_price_factor
    for gpu, by in TABLE.gpus.items():
        od = by["hyperscaler_on_demand"].typical
        got = by["hyperscaler_committed"]
        assert (got.lo, got.typical, got.hi) == pytest.approx((od * f.lo, od * f.typical, od * f.hi), abs=0.006), gpu


def test_committed_is_cheaper_than_on_demand_and_newer_gpus_rent_dearer():
    for by in TABLE.gpus.values():
        assert by["hyperscaler_committed"].typical < by["hyperscaler_on_demand"].typical
    for cls in TABLE.classes:
        order = [TABLE.gpus[g][cls].typical for g in ("a100-40", "a100-80", "h100", "h200", "b200")]
        assert order == sorted(order), cls


def test_a_bad_table_is_refused_naming_the_field(tmp_path):
    bad = tmp_path / "rental_prices.yaml"
    bad.write_text(rent.RENTAL_FILE.read_text(encoding="utf-8").replace("  h100:\n", "  h999:\n", 1), encoding="utf-8")
    with pytest.raises(CatalogError, match="h999"):
        rent.load_rental_table(bad)


# --- the formulas, against the result's own figures

def test_owned_costs_follow_from_the_cash_cost_and_the_gpu_count():
    sc, res = evaluated(INTRO)
    o = rent.for_scenario(res, sc)
    gpus = res.nodes * CAT.gpus[sc.cluster.gpu].default_gpus_per_node.typical
    assert o.gpus == gpus
    for i, f in enumerate(res.fabrics):
        m = f.metrics
        per_year = m["cash_total"] / res.horizon_years
        assert o.owned_cash_per_year[i] == pytest.approx(per_year)
        assert o.owned_per_gpu_hour[i] == pytest.approx(per_year / (gpus * 8760))
        assert o.owned_per_busy_gpu_hour[i] == pytest.approx(per_year / (gpus * m["busy_hours_per_year"]))
        # per useful hour of the plan: the model's useful share of a training hour, at the plan's use
        useful_share = m["cost_per_cluster_hour"] / gpus / m["cost_per_useful_gpu_hour"]
        assert 0 < useful_share <= 1
        assert o.owned_per_useful_gpu_hour[i] == pytest.approx(o.owned_per_busy_gpu_hour[i] / useful_share)
        # owning costs less per useful hour than per busy hour is impossible: useful <= busy
        assert o.owned_per_useful_gpu_hour[i] >= o.owned_per_busy_gpu_hour[i] * (1 - 1e-9)


def test_renting_needs_the_fastest_fabrics_run_time_for_each_fabrics_work():
    sc, res = evaluated(CASE3)
    o = rent.for_scenario(res, sc)
    fastest = min(res.fabrics, key=lambda f: f.metrics["run_days"])
    assert set(o.reference) == {fastest.id}
    typical = np.array([q.typical for q in TABLE.gpus[sc.cluster.gpu].values()])
    for i, f in enumerate(res.fabrics):
        hours = f.metrics["runs_per_year"] * fastest.metrics["run_days"] * 24 * o.gpus
        assert o.rent_gpu_hours_per_year[i] == pytest.approx(hours)
        assert o.rent_cost_per_year[i, :, 1] == pytest.approx(typical * hours)
        be = f.metrics["cash_total"] / res.horizon_years / (typical * o.gpus * 8760)
        assert o.break_even[i, :, 1] == pytest.approx(be)
    # the fastest fabric rents exactly the GPU-hours it keeps its own cluster busy
    j = o.index(fastest.id)
    assert o.rent_gpu_hours_per_year[j] == pytest.approx(fastest.metrics["busy_hours_per_year"] * o.gpus)


def test_own_efficiency_rents_each_fabrics_own_busy_hours():
    sc, res = evaluated(CASE3)
    o = rent.for_scenario(res, sc, rented_efficiency="own")
    assert o.reference == tuple(f.id for f in res.fabrics)
    busy = np.array([f.metrics["busy_hours_per_year"] for f in res.fabrics])
    assert o.rent_gpu_hours_per_year == pytest.approx(busy * o.gpus)
    fastest = rent.for_scenario(res, sc)
    assert np.all(o.rent_gpu_hours_per_year >= fastest.rent_gpu_hours_per_year * (1 - 1e-12))


def test_prices_are_converted_to_the_results_currency():
    sc, res = evaluated(INTRO)
    cny = dataclasses.replace(res, currency="CNY")
    usd, yuan = rent.for_scenario(res, sc), rent.for_scenario(cny, sc)
    assert yuan.prices == pytest.approx(usd.prices * reference_rate("USD", "CNY"))
    assert reference_rate("USD", "CNY") != 1


def test_fabric_scope_and_a_gpu_without_prices_are_refused_with_a_reason():
    sc, res = evaluated(INTRO)
    with pytest.raises(ValueError, match="whole-cluster scope"):
        rent.for_scenario(dataclasses.replace(res, scope="fabric"), sc)
    with pytest.raises(ValueError, match=r"a10.*stored: a100-40"):
        rent.own_vs_rent(res, "a10", 8)


# --- properties

@given(cash=st.floats(1e3, 1e9), gpus=st.integers(1, 100_000), price=st.floats(0.1, 50), k=st.floats(1.0, 10.0),
       hours=st.floats(1.0, 1e9))
def test_a_dearer_rent_never_makes_renting_cheaper_and_lowers_the_break_even(cash, gpus, price, k, hours):
    assert rent.rent_cost(price * k, hours) >= rent.rent_cost(price, hours)
    assert rent.break_even_utilisation(cash, gpus, price * k) <= rent.break_even_utilisation(cash, gpus, price)


@given(cash=st.floats(1e3, 1e9), gpus=st.integers(1, 100_000), u=st.floats(0.01, 1.0), du=st.floats(0.0, 1.0))
def test_owning_costs_less_per_gpu_hour_the_busier_the_cluster(cash, gpus, u, du):
    busier = min(1.0, u + du)
    assert rent.owned_cost_per_gpu_hour(cash, gpus, busier) <= rent.owned_cost_per_gpu_hour(cash, gpus, u)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(sc=scenarios(max_nodes=256), k=st.floats(1.0, 5.0))
def test_on_any_scenario_a_dearer_rent_costs_more_to_rent_and_breaks_even_sooner(sc, k):
    assume(sc.scope == "cluster" and sc.cluster.gpu in TABLE.gpus)
    res = costmodel.evaluate(sc)
    base, dear = rent.for_scenario(res, sc), rent.for_scenario(res, sc, table=scaled(TABLE, k))
    ok = np.isfinite(base.rent_cost_per_year)
    assert np.all(dear.rent_cost_per_year[ok] >= base.rent_cost_per_year[ok])
    fin = np.isfinite(base.break_even)
    assert np.all(dear.break_even[fin] <= base.break_even[fin])
    # at the break-even utilisation, owning and renting every hour of that share cost the same
    u = base.break_even[:, :, 1]
    rent_at_u = base.prices[None, :, 1] * base.gpus * 8760 * u
    assert rent_at_u[np.isfinite(u)] == pytest.approx(np.broadcast_to(base.owned_cash_per_year[:, None], u.shape)[
        np.isfinite(u)])
