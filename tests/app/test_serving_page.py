"""Serving page in AppTest, in en and zh: the inputs come from the scenario's serving section and a
change goes into it (and so into the share link), the table follows serve's answers, a fabric that
cannot meet the TPOT target is named with its reason, the recommendation names the cheapest fabric
that can, and the chart carries the dashed SLA line with short labels and full names on hover."""

from __future__ import annotations

import json

import pytest
from apptest_helpers import keyed, open_page, plotly_specs

import costmodel
from costmodel.scenario.validation import validate_scenario
from costmodel.serving import serving_answers
from webui.i18n import labels
from webui.i18n.translator import Translator
from webui.session import share


def _scenario(**serving) -> costmodel.Scenario:
    doc = costmodel.Scenario().model_dump(mode="json")
    doc["cluster"]["gpu"] = "h800"
    doc["fabrics"], doc["baseline"] = ["tcp-100", "roce-400", "ib-ndr-400"], "roce-400"
    doc["serving"].update({"model": "deepseek-v3", "precision": "fp8", "disaggregated": True, "peak_rps": 100.0,
                           "avg_rps": 50.0, "prompt_tokens": 4000.0, "output_tokens": 1000.0, **serving})
    return validate_scenario(doc)


def _open(lang: str, scenario: costmodel.Scenario):
    return open_page("serving", lang, p="blank", s=share.encode(scenario, "blank"))


def _table(at, t) -> list[list[str]]:
    table = next(m.value for m in at.markdown if m.value.startswith("| " + t("serving.col_fabric") + " | "
                                                                     + t("serving.col_servers") + " |"))
    return [[c.strip().replace("\\", "") for c in line.strip("|").split("|")] for line in table.splitlines()[2:]]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_table_shows_each_fabrics_servers_and_the_recommendation_names_the_cheapest(lang):
    t, scenario = Translator(lang), _scenario()
    at = _open(lang, scenario)
    a = serving_answers(scenario)
    short = labels.fabric_short_names(t)
    rows = _table(at, t)
    assert [r[0] for r in rows] == [short[f] for f in scenario.fabrics]
    assert [int(r[1].replace(",", "")) for r in rows] == [int(x.servers) for x in a.fabrics]
    assert len({r[1] for r in rows}) > 1  # the fabric matters when the model spans servers
    best = a.cheapest()
    rec = next(m.value.replace("\\", "") for m in at.markdown if m.value.startswith("**"))
    assert labels.fabric_names(t)[best.fabric] in rec and best.fabric == "ib-ndr-400"
    assert t("serving.equal_title", base=labels.fabric_names(t)["roce-400"]) in " ".join(
        s.value for s in at.subheader)
    assert not at.warning


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_fabric_that_cannot_meet_the_tpot_target_is_named_with_its_reason(lang):
    t, scenario = Translator(lang), _scenario(tpot_s=0.002)
    a = serving_answers(scenario)
    missed = [r for r in a.fabrics if not r.sla_met]
    assert [r.fabric for r in missed] == ["tcp-100"] and missed[0].reason == "tpot_floor"
    at = _open(lang, scenario)
    warnings = " ".join(w.value.replace("\\", "") for w in at.warning)
    assert labels.fabric_names(t)["tcp-100"] in warnings
    rows = _table(at, t)
    assert rows[0][1] == "—" and rows[0][-1] == t("serving.no") and rows[1][-1] == t("serving.yes")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_demand_change_goes_into_the_scenario_and_the_link_and_changes_the_table(lang):
    t = Translator(lang)
    at = _open(lang, _scenario())
    before = _table(at, t)
    keyed(at.number_input, "w.serving.peak_rps").set_value(400.0).run()
    assert not at.exception
    scenario = at.session_state["scenario"]
    assert scenario.serving.peak_rps == 400.0
    assert share.decode("blank", share.encode(scenario, "blank")).serving.peak_rps == 400.0
    after = _table(at, t)
    assert after != before
    assert [int(r[1].replace(",", "")) for r in after] == [int(x.servers) for x in serving_answers(scenario).fabrics]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_average_above_the_peak_is_refused_naming_the_field_and_the_scenario_is_kept(lang):
    t = Translator(lang)
    at = _open(lang, _scenario())
    keyed(at.number_input, "w.serving.avg_rps").set_value(500.0).run()
    assert at.session_state["scenario"].serving.avg_rps == 50.0
    errors = " ".join(e.value for e in at.error)
    named = "serving.avg_rps" if lang == "en" else t("field.serving.avg_rps")  # English: the model's message
    assert named in errors.replace("\\", "") and "100" in errors


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_chart_has_a_line_per_fabric_the_dashed_sla_and_full_names_on_hover(lang):
    t, scenario = Translator(lang), _scenario()
    at = _open(lang, scenario)
    spec = next(v for k, v in plotly_specs(at).items() if "chart_serving" in k)
    lines = [tr for tr in spec["data"] if tr["mode"] == "lines"]
    short, names = labels.fabric_short_names(t), labels.fabric_names(t)
    assert [tr["name"] for tr in lines] == [short[f] for f in scenario.fabrics]
    assert all(names[f] in tr["text"][0] for tr, f in zip(lines, scenario.fabrics, strict=True))
    (sla,) = spec["layout"]["shapes"]
    assert sla["line"]["dash"] == "dash" and sla["y0"] == pytest.approx(scenario.serving.tpot_s * 1000)
    assert t("serving.axis_tpot") in json.dumps(spec, ensure_ascii=False)
