"""The scenario's serving section (bounds, messages, defaults from the data files, share links) and
:func:`costmodel.serving.serving_answers` against :func:`costmodel.serving.serve`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from costmodel import quantities
from costmodel.catalog.loader import load_catalog
from costmodel.errors import ScenarioError
from costmodel.scenario.changes import with_change
from costmodel.scenario.schema import Scenario
from costmodel.scenario.validation import validate_scenario
from costmodel.serving import serve, serving_answers
from costmodel.serving.answers import scenario_inputs
from webui.session import share

NUMBERS = ("peak_rps", "avg_rps", "prompt_tokens", "output_tokens", "ttft_s", "tpot_s")


def _with(scenario: Scenario, **serving) -> Scenario:
    doc = scenario.model_dump(mode="json")
    doc["serving"].update(serving)
    return validate_scenario(doc)


def _refusal(doc: dict) -> str:
    with pytest.raises(ScenarioError) as exc:
        validate_scenario(doc)
    return str(exc.value)


def test_defaults_come_from_the_data_files():
    s, cat = Scenario().serving, load_catalog()
    for name in NUMBERS:
        assert getattr(s, name) == cat.default("serving", name)
        assert cat.scenario_defaults["serving"][name].source in cat.references
    assert s.model == cat.blank_scenario["serving_model"] and s.precision == "bf16" and s.disaggregated is False


@pytest.mark.parametrize("name", NUMBERS)
def test_each_number_is_refused_outside_the_registry_bounds_naming_the_field(name):
    lo, hi = quantities.spec(f"serving.{name}").bounds()
    doc = Scenario().model_dump(mode="json")
    doc["serving"]["peak_rps"] = hi if name == "avg_rps" else doc["serving"]["peak_rps"]
    for bad in (lo - 1e-3 * max(1.0, abs(lo)), hi * 1.01):
        doc["serving"][name] = bad
        text = _refusal(doc)
        assert text.startswith(f"serving.{name}") and "allowed: ≥" in text and "≤" in text, text


def test_average_above_peak_is_refused_naming_avg_rps():
    doc = Scenario().model_dump(mode="json")
    doc["serving"].update(peak_rps=10.0, avg_rps=12.0)
    text = _refusal(doc)
    assert text.startswith("serving.avg_rps") and "peak_rps (10)" in text
    assert _with(Scenario(), peak_rps=10.0, avg_rps=10.0).serving.avg_rps == 10.0


def test_a_precision_the_part_lacks_is_refused_naming_serving_precision():
    doc = Scenario().model_dump(mode="json")
    doc["cluster"]["gpu"] = "a100-80"
    doc["serving"]["precision"] = "fp8"
    text = _refusal(doc)
    assert text.startswith("serving.precision") and "FP8" in text
    doc["cluster"]["gpu"] = "h100"
    assert validate_scenario(doc).serving.precision == "fp8"


def test_a_change_of_gpu_without_the_serving_precision_falls_back_to_bf16():
    s = _with(Scenario(), precision="fp8")
    changed = with_change(s, "cluster.gpu", "a100-80")
    assert changed.scenario.serving.precision == "bf16" and "serving.precision" in changed.repaired
    assert with_change(s, "cluster.gpu", "h200").scenario.serving.precision == "fp8"


def test_an_unknown_model_is_refused_with_the_allowed_ids():
    doc = Scenario().model_dump(mode="json")
    doc["serving"]["model"] = "gpt-9"
    text = _refusal(doc)
    assert text.startswith("serving.model") and "deepseek-v3" in text and "llama-3.1-70b" in text


def test_a_change_goes_through_with_change():
    changed = with_change(Scenario(), "serving.peak_rps", 55.0).scenario
    assert changed.serving.peak_rps == 55.0
    with pytest.raises(ScenarioError, match=r"serving\.avg_rps"):
        with_change(Scenario(), "serving.peak_rps", 1.0)


@pytest.mark.parametrize("preset", [share.BLANK, "seed-case3-128xH100"])
def test_a_share_link_carries_the_serving_section(preset):
    base = share.preset_scenario(preset)
    edited = _with(base, model="deepseek-v3", precision="fp8", disaggregated=True, peak_rps=123.5, avg_rps=40.0,
                   prompt_tokens=3000.0, output_tokens=700.0, ttft_s=1.5, tpot_s=0.03)
    token = share.encode(edited, preset)
    back = share.decode(preset, token)
    assert back.serving == edited.serving and back == edited
    assert share.decode(preset, share.encode(base, preset)).serving == base.serving


def test_an_old_document_opens_with_the_serving_defaults():
    doc = Scenario().model_dump(mode="json")
    del doc["serving"]
    assert validate_scenario(doc).serving == Scenario().serving


def test_answers_agree_with_serve_per_fabric_in_the_scenario_order():
    s = _with(Scenario(), model="deepseek-v3", precision="fp8", peak_rps=30.0, avg_rps=12.0)
    s = s.model_copy(update={"fabrics": ["ib-ndr-400", "tcp-100", "roce-200"], "baseline": "tcp-100"})
    a = serving_answers(s)
    r = serve(scenario_inputs(s))
    assert [row.fabric for row in a.fabrics] == s.fabrics and a.baseline == "tcp-100"
    for i, row in enumerate(a.fabrics):
        for key in ("servers", "gpus", "ttft_s", "cost_per_mtok_input", "cost_per_mtok_output", "cost_per_hour"):
            assert getattr(row, key) == pytest.approx(float(r[key][0, i]), nan_ok=True), (row.fabric, key)
        assert row.sla_met == bool(r["reachable"][0, i])
        if row.sla_met:
            assert row.tpot_s <= s.serving.tpot_s and row.ttft_s <= s.serving.ttft_s and row.reason == ""
            assert row.tpot_s == pytest.approx(float(r["tpot_s"][0, i]))
            assert 0 < row.fabric_share < 1
        else:
            assert math.isinf(row.servers) and row.reason in ("tpot_floor", "ttft_floor")
    base = a.row("tcp-100")
    assert base.servers_vs_baseline == 0 or math.isnan(base.servers_vs_baseline)
    assert a.hours_per_year == 8760.0 and a.currency == "USD"


def test_a_latency_floor_above_the_tpot_target_is_the_reason_and_the_cheapest_meets_the_sla():
    s = _with(Scenario(), tpot_s=0.001)
    a = serving_answers(s)
    assert not any(r.sla_met for r in a.fabrics) and a.cheapest() is None
    assert {r.reason for r in a.fabrics} == {"tpot_floor"}
    assert all(r.tpot_floor_s > 0.001 for r in a.fabrics)
    ok = serving_answers(Scenario())
    met = [r for r in ok.fabrics if r.sla_met]
    assert met and ok.cheapest().cost_per_mtok == min(r.cost_per_mtok for r in met)


def test_zero_demand_costs_the_idle_minimum_deployment():
    a = serving_answers(_with(Scenario(), peak_rps=0.0, avg_rps=0.0))
    for row in a.fabrics:
        assert row.servers == row.instance_servers
        assert row.cost_per_hour == pytest.approx(row.instance_servers * row.cost_per_server_hour)
        assert np.isinf(row.cost_per_mtok)


def test_the_latency_curve_rises_with_the_batch_and_holds_each_operating_point():
    from costmodel.serving.answers import latency_curve

    s = _with(Scenario(), model="deepseek-v3", precision="fp8", disaggregated=True, peak_rps=50.0, avg_rps=20.0)
    s = s.model_copy(update={"fabrics": ["tcp-100", "ib-ndr-400"], "baseline": "tcp-100"})
    c, a = latency_curve(s), serving_answers(s)
    assert c["tpot_s"].shape == c["tokens_per_s_per_gpu"].shape == (2, c["batch"].size)
    for i, row in enumerate(a.fabrics):
        tpot = c["tpot_s"][i][np.isfinite(c["tpot_s"][i])]
        assert tpot.size > 1 and np.all(np.diff(tpot) >= -1e-12)
        assert tpot[0] == pytest.approx(row.tpot_floor_s)
        j = int(np.flatnonzero(np.isclose(c["batch"], row.batch))[0])
        assert c["tpot_s"][i, j] == pytest.approx(row.tpot_s) and row.tpot_s <= s.serving.tpot_s
        assert c["tokens_per_s_per_gpu"][i, j] == pytest.approx(row.output_tokens_per_s_per_gpu)
    assert a.row("ib-ndr-400").tpot_floor_s < a.row("tcp-100").tpot_floor_s  # the fabric's latency shows
