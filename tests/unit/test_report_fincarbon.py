"""The "After tax and carbon" section of the PDF report and the Compare panel's rows
(webui/sections/fincarbon.py): each fabric's after-tax TCO and NPV beside the pre-tax ones and its
t CO2e per run, per year and over the horizon, in en and zh, the sources named."""

from __future__ import annotations

import html
import re

import pytest
from zh_words import latin_words

import costmodel
from costmodel.catalog.formatting import format_number
from costmodel.scenario.presets import load_preset
from webui.i18n import labels
from webui.i18n.translator import Translator
from webui.reports.html import _table, report_html
from webui.sections.fincarbon import fincarbon_section


def _scenario(region: str):
    data = load_preset("seed-case2-24xA100").model_dump()
    data["finance"]["tax_region"] = region
    data["facility"]["grid_region"] = "cn"
    return costmodel.Scenario.model_validate(data)


def _rows(text: str, table: int) -> list[list[str]]:
    part = text.split("<table>")[table]
    return [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)] for row in part.split("<tr>")[2:]]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_section_shows_after_tax_and_carbon_per_fabric(lang):
    scenario = _scenario("cn")
    res = costmodel.evaluate(scenario)
    t = Translator(lang)
    names = labels.fabric_names(t)
    out = fincarbon_section(t, scenario, res, names, _table, lambda v: f"{v:.0f}")
    assert f">{html.escape(t('fincarbon.title'))}</h2>" in out
    taxes, carbon = _rows(out, 1), _rows(out, 2)
    for f, tax_row, co2_row in zip(res.fabrics, taxes, carbon, strict=True):
        assert tax_row == [names[f.id], f"{f.tco_total:.0f}", f"{f.metrics['tco_after_tax']:.0f}",
                           f"{f.metrics['tax_shield']:.0f}", f"{f.npv:.0f}", f"{f.metrics['npv_after_tax']:.0f}"]
        assert float(tax_row[2]) < float(tax_row[1])
        assert co2_row[2] == format_number(f.metrics["energy_kwh_per_year"] * 0.5306 / f.metrics["runs_per_year"]
                                           / 1000, 1)
    ref = costmodel.catalog.loader.load_catalog().references
    assert html.escape(labels.reference_title(t, ref["cn-eit-law"])) in out
    assert html.escape(labels.reference_title(t, ref["cn-grid-factor"])) in out
    if lang == "zh":
        assert not latin_words(re.sub(r"<[^>]+>", " ", out).replace("&lt;", "").replace("&gt;", ""),
                               {"TCP", "IP"} | set(" ".join(names.values()).split()))


def test_pre_tax_scenarios_say_so():
    t = Translator("en")
    scenario = _scenario("none")
    res = costmodel.evaluate(scenario)
    out = fincarbon_section(t, scenario, res, labels.fabric_names(t), _table, str)
    assert html.escape(t("fincarbon.pre_tax_note")) in out


def test_the_report_carries_the_section():
    out = report_html(_scenario("us"), "en")
    assert "After tax and carbon</h2>" in out
