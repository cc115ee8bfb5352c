"""Risk page: the tornado of the Δ cost of the same work, the after-tax histogram, and the
same work under uncertainty — in en and zh, with the nodes Compare's headline sizes."""

from __future__ import annotations

import json

import pytest
from apptest_helpers import open_page, open_tab, plotly_specs
from switches_2016 import OLD_100G

import costmodel
from webui.i18n.translator import Translator
from webui.panels import lazy_tabs
from webui.session import share

SIZED = "seed-case2-24xA100"  # every fabric can deliver the plan
UNSIZED = "seed-intro-32xA100"  # on 2016's 100G switches TCP and iWARP cannot: no cluster up to the search's limit does


def _scenario(preset: str, **finance) -> costmodel.Scenario:
    """The preset with ``finance`` changes; the unsized one on the 100G switches of 2016 (tests/switches_2016.py)."""
    data = costmodel.load_preset(preset).model_dump()
    data["finance"].update(finance)
    if preset == UNSIZED:
        data["overrides"] = OLD_100G
    return costmodel.Scenario.model_validate(data)


def _link(preset: str, **finance) -> str:
    return share.encode(_scenario(preset, **finance), preset)


def _control(at, name: str):
    found = [w for w in at.button_group if str(w.key).startswith(name + "#")]
    return found[0] if found else None


def _spec(at, part: str) -> str:
    return next(json.dumps(v, sort_keys=True, ensure_ascii=False) for k, v in plotly_specs(at).items() if part in k)


def _work_table(at, t) -> list[list[str]]:
    table = next(m.value for m in at.markdown if m.value.startswith("| " + t("work_mc.col_fabric")))
    return [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()[2:]]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_tornado_can_swing_the_cost_of_the_same_work(lang):
    t = Translator(lang)
    at = open_page("risk", lang, s=_link(SIZED), p=SIZED)
    control = _control(at, "risk_tornado_metric")
    assert control is not None
    assert list(control.options) == [t("risk_metric.tco"), t("risk_metric.work_cost")]
    before = _spec(at, "tornado")
    control.set_value("work_cost").run()
    assert not at.exception
    after = _spec(at, "tornado")
    assert after != before
    assert t("risk_metric.axis_delta_work") in after and t("risk_metric.tornado_title_work") in after
    # the node count is fixed at the sized cluster: it is not among the swung inputs
    assert t("param.nodes") not in after and t("param.nodes") in before


def test_no_work_measure_when_the_baseline_cannot_deliver_the_plan():
    t = Translator("en")
    at = open_page("risk", "en", s=_link(UNSIZED), p=UNSIZED)
    assert _control(at, "risk_tornado_metric") is None
    names = {f.id: f.name for f in costmodel.evaluate(_scenario(UNSIZED)).fabrics}
    note = t("risk_metric.work_unavailable", fabric=names["tcp-100"], max="512")
    assert any(c.value == note for c in at.caption)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_same_work_under_uncertainty_lists_compares_nodes(lang):
    t = Translator(lang)
    at = open_tab(open_page("risk", lang, s=_link(UNSIZED), p=UNSIZED), lazy_tabs.RISK, "work_mc", lang)
    assert t("work_mc.title") in [h.value for h in at.subheader]
    rows = _work_table(at, t)
    ew = costmodel.evaluate(_scenario(UNSIZED)).equal_work
    assert len(rows) == len(ew.fabric_ids)
    for row, ok, n in zip(rows, ew.feasible, ew.nodes, strict=True):
        if ok:
            assert row[1] == f"{int(n):,}" and row[-1].endswith("%") and row[-2].endswith("%")
        else:
            assert row[1] == t("work_mc.none", max="512") and row[2:] == ["—"] * 5


def test_the_histogram_shows_the_after_tax_tco_when_taxed():
    t = Translator("en")
    at = open_tab(open_page("risk", "en", s=_link(SIZED, tax_region="cn"), p=SIZED), lazy_tabs.RISK, "mc")
    control = _control(at, "risk_mc_metric")
    assert control is not None
    before = _spec(at, "mc")
    control.set_value("tco_after_tax").run()
    assert not at.exception
    after = _spec(at, "mc")
    assert after != before and t("risk_metric.axis_tco_after_tax") in after


def test_only_the_open_tab_computes_and_the_draws_and_seed_carry_between_the_monte_carlo_tabs():
    at = open_page("risk", "en", s=_link(SIZED), p=SIZED)
    assert [k for k in plotly_specs(at) if "chart_mc" in k] == []  # the tornado's tab opens first
    at = open_tab(at, lazy_tabs.RISK, "mc")
    at.number_input(key="risk_seed").set_value(7).run()
    at.select_slider(key="risk_draws").set_value(2_000).run()
    mc_note = Translator("en")("risk.mc_note", draws="2,000", seed=7)
    assert mc_note in [c.value for c in at.caption]
    at = open_tab(at, lazy_tabs.RISK, "work_mc")
    assert [k for k in plotly_specs(at) if "chart_mc" in k] == []  # the closed tab's chart is not drawn
    assert at.number_input(key="risk_seed").value == 7 and at.select_slider(key="risk_draws").value == 2_000


def _resize_table(at, t) -> list[list[str]]:
    table = next(m.value for m in at.markdown if m.value.startswith("| " + t("work_resize.col_fabric") + " | "
                                                                     + t("work_resize.col_nodes_p10")))
    return [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines()[2:]]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_same_work_re_sized_in_every_draw_is_shown_not_left_uncomputed(lang):
    from costmodel.analysis import work_resize

    t = Translator(lang)
    at = open_tab(open_page("risk", lang, s=_link(UNSIZED), p=UNSIZED), lazy_tabs.RISK, "work_mc", lang)
    assert not at.exception
    assert any(t("work_resize.title") in m.value.replace("\\", "") for m in at.markdown)
    scenario = _scenario(UNSIZED)
    note = t("work_resize.note", years=int(scenario.finance.horizon_years))
    assert any(c.value.replace("\\", "") == note for c in at.caption)
    want = work_resize.resized_monte_carlo(scenario, draws=10_000, seed=1,
                                           work=costmodel.evaluate(scenario).equal_work).summary()
    rows = _resize_table(at, t)
    assert len(rows) == len(want)
    for row, r in zip(rows, want.itertuples(index=False), strict=True):
        assert row[1:4] == [f"{r.nodes_p10:,.0f}", f"{r.nodes_p50:,.0f}", f"{r.nodes_p90:,.0f}"]
        assert row[-3:] == [f"{r.prob_first:.0%}", f"{r.prob_found:.0%}", f"{r.prob_flagged:.0%}"]
