"""Model behaviour: scopes, schedules, finance options, recommendation."""

from __future__ import annotations

import numpy as np
import pytest

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.pipeline.recommend import seed_rule


def preset_data(**groups) -> dict:
    """The intro preset as a dict with some groups updated (dicts merged, other values replaced)."""
    base = costmodel.load_preset("seed-intro-32xA100").model_dump()
    for group, changes in groups.items():
        if isinstance(changes, dict):
            base[group].update(changes)
        else:
            base[group] = changes
    return base


def scenario(**groups):
    return costmodel.Scenario.model_validate(preset_data(**groups))


def test_fabric_scope_excludes_servers_and_is_smaller():
    whole = costmodel.evaluate(scenario())
    fabric = costmodel.evaluate(scenario(scope="fabric"))
    sc = scenario()
    # the front-end Ethernet is the same for every fabric: counted in cluster scope only
    book = load_catalog().price_book(sc.price_book)
    front = sc.cluster.nodes * book.gpus[sc.cluster.gpu].frontend_per_node.typical
    assert sc.cluster.frontend_network and front > 0
    for w, f in zip(whole.fabrics, fabric.fabrics, strict=False):
        assert f.breakdown["compute_capex"] == 0.0
        assert f.network_capex_purchase == pytest.approx(w.network_capex_purchase - front)
        assert f.breakdown["cpu_overhead"] == pytest.approx(w.breakdown["cpu_overhead"])
        assert f.tco_total < w.tco_total
        assert f.breakdown["interruptions"] <= w.breakdown["interruptions"]


def test_slow_network_costs_waiting_energy_in_fabric_scope():
    res = costmodel.evaluate(scenario(scope="fabric"))
    tcp, ib = res.fabric("tcp-100"), res.fabric("ib-ndr-400")
    # every fabric exposes some communication (the last gradient bucket, the part of the all-reduce
    # longer than the last micro-batch's backward); TCP's is the larger
    assert tcp.metrics["exposed_comm_s"] > ib.metrics["exposed_comm_s"] > 0
    assert tcp.metrics["run_days"] > ib.metrics["run_days"]
    # IB's network draws more power, but TCP's waiting cluster costs more energy than that
    assert tcp.breakdown["energy"] > ib.breakdown["energy"]


def test_plan_that_does_not_fit_is_flagged():
    busy = costmodel.evaluate(scenario(workload={"schedule": "always_busy"}))
    most = {f.id: f.metrics["runs_per_year"] for f in busy.fabrics}
    assert most["tcp-100"] < most["ib-ndr-400"]
    plan = round((most["tcp-100"] + most["ib-ndr-400"]) / 2)  # more than TCP can run, less than IB
    assert most["tcp-100"] < plan < most["ib-ndr-400"]
    res = costmodel.evaluate(scenario(workload={"runs_per_year": plan}))
    tcp, ib = res.fabric("tcp-100"), res.fabric("ib-ndr-400")
    assert not tcp.fits_plan and tcp.metrics["plan_load"] > 1
    assert tcp.metrics["busy_hours_per_year"] == pytest.approx(8760)
    assert tcp.metrics["runs_per_year"] < plan
    assert ib.fits_plan and ib.metrics["runs_per_year"] == pytest.approx(plan)


def test_always_busy_recommends_by_cost_per_run_when_no_cluster_delivers_the_plan():
    # the equal-work ranking comes first; a target no cluster meets leaves the fixed cluster's
    res = costmodel.evaluate(scenario(workload={"schedule": "always_busy", "target_run_days": 0.001}))
    assert not res.equal_work.feasible.any()
    assert res.recommendation.metric == "cost_per_run"
    best = min(res.fabrics, key=lambda f: f.metrics["cost_per_run"])
    assert res.recommendation.cost_optimal == best.id
    for f in res.fabrics:
        assert f.metrics["busy_hours_per_year"] == pytest.approx(8760)


def test_instalments_spread_capex_and_cost_interest():
    upfront = costmodel.evaluate(scenario(finance={"residual_value_frac": 0.0}))
    inst = costmodel.evaluate(scenario(finance={"residual_value_frac": 0.0, "payment": "instalments",
                                                "instalment_months": 36, "instalment_rate_annual": 0.06}))
    u, i = upfront.fabric("tcp-100"), inst.fabric("tcp-100")
    assert i.yearly[0]["compute_capex"] == 0 and u.yearly[0]["compute_capex"] > 0
    assert i.breakdown["compute_capex"] > u.breakdown["compute_capex"]  # interest
    assert [y["compute_capex"] > 0 for y in i.yearly] == [False, True, True, True, False, False]


def test_residual_value_is_a_final_year_inflow():
    res = costmodel.evaluate(scenario(finance={"residual_value_frac": 0.2}))
    f = res.fabric("tcp-100")
    assert f.yearly[-1]["compute_capex"] == pytest.approx(-0.2 * f.compute_capex_purchase)


def test_payback_and_irr_of_an_upgrade():
    res = costmodel.evaluate(scenario(scope="fabric", workload={"runs_per_year": 10}))
    ib = res.fabric("ib-ndr-400")
    savings = np.array([b["total"] - y["total"] for b, y in zip(res.fabric("tcp-100").yearly, ib.yearly, strict=False)])
    if ib.payback_years is not None:
        cum = np.cumsum(savings)
        assert cum[int(np.ceil(ib.payback_years))] >= -1e-6
    if ib.irr is not None:
        assert abs(costmodel.money.finance.npv(ib.irr, savings)) < 1e-6 * abs(savings[0])


def test_more_rails_shorten_a_network_bound_run():
    one = costmodel.evaluate(scenario(cluster={"nics_per_node": 1})).fabric("tcp-100")
    eight = costmodel.evaluate(scenario(cluster={"nics_per_node": 8})).fabric("tcp-100")
    assert eight.metrics["run_days"] < one.metrics["run_days"]
    assert eight.network_capex_purchase > one.network_capex_purchase


def test_fsdp_moves_more_bytes_than_dp():
    """Data parallel (TP in the node) all-reduces the gradient once per step, 2 (N−1)/N · P·2 B per
    node; ZeRO-3 gathers the weights twice and reduce-scatters the gradients for every one of its
    m micro-batches, m · 3 (G−1)/G · P·2 B per node (G = N g ranks, one per GPU)."""
    s = scenario()
    dp = costmodel.evaluate(s).fabric("tcp-100")
    fsdp = costmodel.evaluate(scenario(workload={"parallelism": "fsdp"})).fabric("tcp-100")
    n, g = s.cluster.nodes, s.cluster.gpus_per_node
    m = s.workload.global_batch_tokens_m * 1e6 / s.workload.seq_len / (n * g * s.workload.micro_batch_seqs)
    ratio = 1.5 * m * ((n * g - 1) / (n * g)) / ((n - 1) / n)
    assert fsdp.metrics["bytes_per_node_step"] == pytest.approx(ratio * dp.metrics["bytes_per_node_step"])


def test_pipeline_adds_bubble_and_p2p():
    res = costmodel.evaluate(costmodel.load_preset("seed-case3-128xH100"))
    ib = res.fabric("ib-xdr-800")
    assert ib.metrics["step_time_s"] > ib.metrics["compute_time_s"] * (1 + 15 / 384) * 0.999


@pytest.mark.parametrize(
    ("nodes", "params", "tight", "ethernet", "ops", "family"),
    [
        (4, 5, False, False, "strong", "roce"),
        (8, 70, False, False, "strong", "infiniband"),  # tie: the node rule decides
        (16, 30, False, False, "strong", "infiniband"),
        (16, 30, True, True, "weak", "roce"),
        (16, 5, True, False, "weak", "roce"),
        (33, 1, True, True, "weak", "infiniband"),
        (1000, 1000, False, False, "strong", "infiniband"),
    ],
)
def test_seed_rule(nodes, params, tight, ethernet, ops, family):
    assert seed_rule(nodes, params, tight, ethernet, ops)[0] == family


def test_recommendation_reasons_when_voices_differ():
    res = costmodel.evaluate(costmodel.load_preset("seed-intro-32xA100"))
    rec = res.recommendation
    assert rec.rule_family == "infiniband" and rec.rule == "ib-ndr-400"
    if rec.cost_optimal != rec.rule:
        assert any("cost model:" in r for r in rec.reasons)


def test_daly_interval_is_public():
    assert costmodel.physics.reliability.daly_interval(60.0, 86_400.0) == pytest.approx(3180.062, abs=0.001)


def test_overrides_change_exactly_what_they_say():
    base = costmodel.load_preset("seed-case2-24xA100")
    data = base.model_dump()
    data["overrides"] = {"fabric_prices": {"ib-ndr-400": {"switch_price": 0.0}},
                         "fabrics": {"tcp-100": {"efficiency": 0.9}}}
    edited = costmodel.Scenario.model_validate(data)
    a, b = costmodel.evaluate(base), costmodel.evaluate(edited)
    ib_a, ib_b = a.fabric("ib-ndr-400"), b.fabric("ib-ndr-400")
    assert ib_b.metrics["capex_switches"] == 0 and ib_a.metrics["capex_switches"] > 0
    assert ib_b.metrics["capex_nics"] == ib_a.metrics["capex_nics"]
    assert b.fabric("tcp-100").metrics["run_days"] < a.fabric("tcp-100").metrics["run_days"]
    assert b.fabric("roce-200").tco_total == pytest.approx(a.fabric("roce-200").tco_total)


def test_an_overridden_quantity_is_no_longer_uncertain():
    from costmodel.pipeline.inputs import build

    data = costmodel.load_preset("seed-case2-24xA100").model_dump()
    data["overrides"] = {"fabric_prices": {"ib-ndr-400": {"switch_price": 30000.0}}}
    built = build(costmodel.Scenario.model_validate(data))
    u = next(x for x in built.uncertain if x.name == "switch_price")
    j = built.structure.fabric_ids.index("ib-ndr-400")
    assert u.low[0, j] == u.high[0, j] == 30000.0


@pytest.mark.parametrize(
    ("overrides", "fragment"),
    [
        ({"fabrics": {"ib-ndr-400": {"efficiency": 2.0}}}, "overrides.fabrics.ib-ndr-400.efficiency"),
        ({"fabrics": {"nope": {"efficiency": 0.5}}}, "overrides.fabrics.nope: unknown id"),
        ({"gpu_prices": {"h100": {"rental_per_gpu_hour": -1.0}}}, "≥ 0"),
        ({"gpu_prices": {"h100": {"server_price": 1.0}}}, "not an overridable quantity"),
        ({"gpus": {"h100": {"colour": 1.0}}}, "not an overridable quantity"),
        ({"fabric_prices": {"tcp-100": {"nic_price": "cheap"}}}, "valid number"),
    ],
)
def test_bad_overrides_name_the_field(overrides, fragment):
    data = costmodel.load_preset("seed-case2-24xA100").model_dump()
    data["overrides"] = overrides
    with pytest.raises(costmodel.ScenarioError, match=fragment.replace(".", r"\.")):
        costmodel.scenario_from_dict(data)


def test_a_batch_varying_only_a_price_broadcasts():
    from costmodel.pipeline.inputs import build
    from costmodel.pipeline.tco import compute

    built = build(costmodel.load_preset("seed-case2-24xA100"))
    prices = np.array([[0.05], [0.10], [0.20]])
    out = compute(built.inputs.replace(electricity_price=prices), built.structure)
    assert out.tco.shape == (3, 4) and out.metrics["run_days"].shape == (3, 4)
    assert np.all(np.diff(out.tco, axis=0) > 0)


def test_payback_is_never_zero_for_a_fabric_that_costs_more_overall():
    for payment in ("upfront", "instalments"):
        data = costmodel.load_preset("seed-intro-32xA100").model_dump()
        data["finance"].update(payment=payment, instalment_months=36)
        res = costmodel.evaluate(costmodel.Scenario.model_validate(data))
        for f in res.fabrics:
            if f.id == res.baseline:
                continue
            if f.delta_vs_baseline > 0:
                assert f.payback_years is None, (payment, f.id)
            if f.payback_years is not None:
                cum = np.cumsum([b["total"] - y["total"] for b, y in zip(res.fabric(res.baseline).yearly, f.yearly,
                                                                       strict=True)])
                assert np.all(cum[int(np.ceil(f.payback_years)):] >= -1e-6)


def test_a_free_baseline_gives_no_ratio_instead_of_a_crash():
    data = costmodel.load_preset("seed-case2-24xA100").model_dump()
    data["facility"]["electricity_price_per_kwh"] = 0.0
    data["operations"].update(network_ops_cost_per_node_year=0.0, maintenance_frac_per_year=0.0,
                              value_of_cluster_hour=0.0, network_staff_fte=0.0)
    data["cluster"]["host_cpu_cost_share"] = 0.0
    data["overrides"] = {"fabric_prices": {"tcp-100": {k: 0.0 for k in
                         ("nic_price", "switch_price", "cable_price", "optic_price", "install_per_node",
                          "aec_price", "aoc_price", "fibre_price", "install_per_link", "support_frac")}}}
    res = costmodel.evaluate(costmodel.Scenario.model_validate(data))
    assert res.fabric("tcp-100").tco_total == 0.0
    assert res.to_dict()["fabrics"][1]["ratio_vs_baseline"] is None
    import json

    json.dumps(res.to_dict(), allow_nan=False)


@pytest.mark.parametrize(("changes", "fragment"), [
    ({"name": "evil\u202eexe.txt"}, "name: contains control"),
    ({"workload": {"parallelism": "pipeline", "pipeline_stages": 64}}, "workload.pipeline_stages: at most"),
])
def test_schema_cross_checks(changes, fragment):
    with pytest.raises(costmodel.ScenarioError, match=fragment):
        costmodel.scenario_from_dict(preset_data(**changes))


def test_yaml_duplicate_keys_are_refused(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("cluster:\n  nodes: 0\n  nodes: 24\n", encoding="utf-8")
    with pytest.raises(costmodel.ScenarioError, match="nodes: given twice"):
        costmodel.load_scenario(path)
