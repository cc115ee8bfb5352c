"""Finance and carbon in the app: the Compare panel, the Cluster inputs and the Risk
page's after-tax tornado and histogram, for a taxed scenario opened from a share link, in en and zh."""

from __future__ import annotations

import json

import pytest
from apptest_helpers import open_details, open_page, open_tab, plotly_specs
from switches_2016 import OLD_100G

import costmodel
from webui.i18n.translator import Translator
from webui.panels import lazy_tabs
from webui.session import share

PRESET = "seed-intro-32xA100"


def _taxed() -> str:
    data = costmodel.load_preset(PRESET).model_dump()
    data["finance"]["tax_region"] = "cn"
    data["facility"]["grid_region"] = "cn"
    return share.encode(costmodel.Scenario.model_validate(data), PRESET)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compare_shows_after_tax_and_carbon(lang):
    t = Translator(lang)
    at = open_details(open_page("compare", lang, p=PRESET, s=_taxed()), "fincarbon", lang)
    assert t("fincarbon.title") in [h.value for h in at.subheader]
    text = "\n".join(m.value for m in at.markdown)
    assert t("fincarbon.col_tco_after", years=5) in text and t("fincarbon.col_t_run") in text


def test_cluster_page_has_the_tax_and_grid_inputs():
    at = open_page("cluster", "en", p=PRESET, s=_taxed())
    labels = [w.label for w in at.number_input]
    t = Translator("en")
    assert any(t("field.facility.grid_kg_per_kwh").split(" [")[0] in lab for lab in labels)
    assert any(t("wr.pct.finance.tax_rate").split(" [")[0] in lab for lab in labels)


def _measure(at, name: str):
    found = [w for w in at.button_group if str(w.key).startswith(name + "#")]
    assert len(found) <= 1
    return found[0] if found else None


def test_risk_tornado_switches_to_the_after_tax_delta():
    at = open_page("risk", "en", p=PRESET, s=_taxed())
    before = _tornado(at)
    control = _measure(at, "risk_tornado_metric")
    assert control is not None
    assert Translator("en")("risk_metric.tco_after_tax") in list(control.options)
    control.set_value("tco_after_tax").run()
    assert not at.exception
    after = _tornado(at)
    assert after != before  # the bars are the after-tax ΔTCO now
    assert Translator("en")("risk_metric.axis_delta_after_tax") in after


def _tornado(at) -> str:
    specs = plotly_specs(at)
    return next(json.dumps(v, sort_keys=True, ensure_ascii=False) for k, v in specs.items() if "tornado" in k)


def test_an_untaxed_scenario_has_no_after_tax_switch():
    data = costmodel.load_preset(PRESET).model_dump() | {"overrides": OLD_100G}
    at = open_page("risk", "en", p=PRESET, s=share.encode(costmodel.Scenario.model_validate(data), PRESET))
    # the intro preset on 2016's 100G switches: untaxed, and its baseline cannot deliver the plan, so ΔTCO
    # is the only measure
    assert _measure(at, "risk_tornado_metric") is None
    assert _measure(open_tab(at, lazy_tabs.RISK, "mc"), "risk_mc_metric") is None
