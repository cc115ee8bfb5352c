"""The quick estimate page (快速估算) in a simulated session: three steps reach the recommendation;
the answer is the session's scenario, which the full pages and the share link show; serving is said
to be not modelled; a budget sizes the cluster with the model; bad numbers are refused in words."""

from __future__ import annotations

import urllib.parse

import pytest
from apptest_helpers import go, keyed, open_page
from zh_words import latin_words

import costmodel
from costmodel.analysis import guided as analysis
from costmodel.catalog.formatting import fabric_names
from costmodel.catalog.loader import load_catalog
from costmodel.scenario import guided, locale_defaults
from webui.i18n.money import Money, default_rate
from webui.i18n.translator import Translator, catalog, fmt_number
from webui.session import share

CAT = load_catalog()


def _step(at, key: str):
    at.button(key=key).click().run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _choose(at, kind: str, name: str, value):
    keyed(at.get(kind), name).set_value(value).run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _three_steps(lang: str, model: str, gpu: str, gpus: int, priority: str):
    at = open_page("guided", lang)
    _choose(at, "selectbox", "guided_model", model)
    at = _step(at, "guided_next1")
    _choose(at, "selectbox", "guided_gpu", gpu)
    at.number_input(key="guided_gpus").set_value(gpus).run()
    at = _step(at, "guided_next2")
    _choose(at, "radio", "guided_priority", priority)
    return _step(at, "guided_show")


def _base(lang: str):
    return locale_defaults.localize(share.preset_scenario(share.BLANK), lang)


@pytest.mark.parametrize("lang, model, gpu, gpus, priority", [
    ("zh", "dense-70b", "h800", 64, "time"),
    ("en", "moe-671b", "h100", 256, "cost"),
    ("zh", "dense-7b", "h20", 20, "risk"),
])
def test_three_steps_reach_the_recommendation_of_the_model(lang, model, gpu, gpus, priority):
    at = _three_steps(lang, model, gpu, gpus, priority)
    t = Translator(lang)
    nodes = guided.nodes_for(gpus, int(CAT.gpus[gpu].default_gpus_per_node.typical))
    want = guided.build(_base(lang), model, gpu, nodes, priority)
    assert at.session_state["scenario"] == want and at.session_state["preset"] == share.BLANK
    res = costmodel.evaluate(want)
    fabric = fabric_names(lang)[analysis.pick(res, priority)]
    heads = [h.value for h in at.subheader]
    assert heads[:3] == [t("guided.step1"), t("guided.step2"), t("guided.step3")]
    assert heads[3] == t("guided.answer", fabric=fabric)
    reason = at.markdown[0].value.replace("\\", "")
    assert reason.startswith(fabric if lang == "en" or priority == "cost" else "") and fabric in reason, reason
    f = res.fabric(analysis.pick(res, priority))
    cur = CAT.price_book(want.price_book).currency
    money = Money(cur, cur, default_rate(cur, cur), lang)
    assert [m.value for m in at.metric] == [money.short(f.tco_total), fmt_number(f.metrics["run_days"], 1),
                                            fmt_number(f.metrics["lost_hours_per_year"], 1),
                                            money.short(f.metrics["cost_per_run"])]
    link = at.code[0].value  # the guide's link: the ordinary ?p=&s= of every page, opening on Compare
    query = urllib.parse.parse_qs(link.split("?", 1)[1])
    assert query["p"] == [share.BLANK] and query["lang"] == [lang]
    assert share.decode(share.BLANK, query["s"][0]) == want


def test_the_full_pages_show_the_scenario_the_guide_built_and_a_return_keeps_their_edits():
    at = _three_steps("zh", "dense-405b", "h100", 128, "cost")
    built = at.session_state["scenario"]
    at = go(at, "compare")
    assert at.session_state["scenario"] == built
    assert Translator("zh")("compare.fixed_title", nodes="16") in [h.value for h in at.subheader]
    at = go(at, "cluster")
    keyed(at.number_input, "w.cluster.nodes").set_value(20).run()
    assert at.session_state["scenario"].cluster.nodes == 20
    at = go(at, "guided")  # the page opens on its answers again, without undoing the edit
    assert at.session_state["scenario"].cluster.nodes == 20
    assert keyed(at.selectbox, "guided_model").value == "dense-405b"
    assert at.number_input(key="guided_gpus").value == 128


def test_serving_is_said_to_be_not_modelled_and_cannot_go_on():
    at = open_page("guided", "zh")
    _choose(at, "radio", "guided_task", "serve")
    assert Translator("zh")("guided.serve_on_page") in [i.value for i in at.info]
    assert at.button(key="guided_next1").disabled
    assert keyed(at.selectbox, "guided_model").disabled


def test_a_budget_sizes_the_cluster_with_the_model():
    at = open_page("guided", "en")
    _choose(at, "selectbox", "guided_model", "dense-70b")
    at = _step(at, "guided_next1")
    _choose(at, "radio", "guided_sizing", "budget")
    at.number_input(key="guided_budget").set_value(40_000_000).run()
    s = guided.build(_base("en"), "dense-70b", "h100", 8, "cost")
    found = analysis.largest_within(s, 40_000_000)
    caption = " ".join(c.value for c in at.caption)
    assert f"{found.nodes:,} servers × 8 GPUs = {found.nodes * 8:,} GPUs" in caption
    at = _step(at, "guided_next2")
    at = _step(at, "guided_show")
    assert at.session_state["scenario"].cluster.nodes == found.nodes


def test_a_budget_too_small_for_one_server_says_so_and_stops():
    at = open_page("guided", "zh")
    at = _step(at, "guided_next1")
    _choose(at, "radio", "guided_sizing", "budget")
    at.number_input(key="guided_budget").set_value(1000).run()
    assert any("买不起一台服务器" in w.value for w in at.warning)
    assert at.button(key="guided_next2").disabled


@pytest.mark.parametrize("value", [0, 2.5, 10**9])
def test_an_impossible_gpu_count_is_refused_in_words(value):
    at = open_page("guided", "zh")
    at = _step(at, "guided_next1")
    at.number_input(key="guided_gpus").set_value(value).run()
    assert any("GPU 数量" in e.value for e in at.error), [e.value for e in at.error]


def test_the_chinese_guide_shows_no_stray_english_and_lists_the_china_market_parts():
    at = _three_steps("zh", "moe-671b", "h20", 64, "risk")
    texts = [h.value for h in at.subheader] + [m.value for m in at.markdown] + [c.value for c in at.caption]
    texts += [m.label for m in at.metric]
    for kind in ("selectbox", "radio", "number_input", "button"):
        for w in at.get(kind):
            texts += [str(w.label)] + [str(o) for o in (getattr(w, "options", None) or [])]
    stray = {w: x[:80] for x in texts if "?p=" not in x for w in latin_words(x.replace("\\", ""))}
    assert not stray, stray
    assert {"H800", "H20"} <= {o.split()[1] for o in keyed(at.selectbox, "guided_gpu").options}


def test_every_text_of_the_guide_exists_in_both_languages():
    en = {k for k in catalog("en") if k.startswith("guided.")}
    zh = {k for k in catalog("zh") if k.startswith("guided.")}
    assert en == zh and len(en) > 30
    assert {f"guided.why.{p}" for p in guided.PRIORITIES} <= en


def test_a_plan_no_fabric_can_keep_is_said_once_with_the_way_out():
    at = _three_steps("en", "dense-70b", "h800", 64, "time")
    res = costmodel.evaluate(at.session_state["scenario"])
    assert not any(f.fits_plan for f in res.fabrics)  # 1.4 T tokens six times a year on 64 GPUs
    assert all(f.metrics["fits_memory"] for f in res.fabrics)
    days = min(f.metrics["run_days"] for f in res.fabrics)
    warnings = [w.value for w in at.warning]
    assert warnings == [Translator("en")("guided.no_fit", nodes="8", runs="6", days=f"{days:,.0f}")], warnings


def test_a_plan_one_fabric_keeps_lists_only_the_fabrics_that_cannot():
    at = _three_steps("en", "dense-70b", "h100", 512, "cost")
    res = costmodel.evaluate(at.session_state["scenario"])
    late = [f for f in res.fabrics if not f.fits_plan]
    assert len(at.warning) == len(late) < len(res.fabrics)
