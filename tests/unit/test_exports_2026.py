"""The 2026 cluster fields in a customer's files: the PDF report (its HTML, which Chromium prints), the
workbook, the CSV and the deck name the scale-up domain, the cooling, the PUE used, the rack power limit
and the racks, and carry each fabric's scale-out share of a step equal to the model's ``Result``; a
preset older than the fields shows one 8-GPU server as the domain and air cooling."""

from __future__ import annotations

import csv
import html
import io
import re

import openpyxl
import pytest
import yaml

import costmodel
from costmodel.catalog.formatting import format_number, format_share
from costmodel.exports.csv import HEADERS_FILE, results_csv, yearly_csv
from costmodel.exports.workbook import labels, workbook_bytes
from costmodel.pipeline.facility_checks import rack_plan
from costmodel.pipeline.inputs import build
from webui.i18n import labels as ui_labels
from webui.i18n.translator import Translator
from webui.reports.deck import build_deck
from webui.reports.html import report_html

PRESETS = ("gb200-nvl72-8racks", "b300-128", "seed-case2-24xA100")
LANGS = ("en", "zh")


@pytest.fixture(scope="module")
def evaluated() -> dict[str, tuple[costmodel.Scenario, costmodel.pipeline.results.Result]]:
    return {p: (s := costmodel.load_preset(p), costmodel.evaluate(s)) for p in PRESETS}


def _cell_after(doc: str, label: str) -> str:
    """The text of the table cell right after the cell reading ``label`` in the report's HTML."""
    m = re.search(rf"<td>{re.escape(html.escape(label))}</td><td[^>]*>(.*?)</td>", doc)
    assert m is not None, label
    return html.unescape(m.group(1))


def _fabric_rows(doc: str, t: Translator) -> list[list[str]]:
    """The per-fabric rows of the training section's table (the one headed by the scale-out column)."""
    head = html.escape(t("cluster26.col_scaleout"))
    table = doc[doc.index(f">{head}</th>"):]
    table = table[:table.index("</table>")]
    return [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)] for row in table.split("<tr>")[1:]]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("preset", PRESETS)
def test_the_pdf_names_domain_cooling_pue_racks_and_each_fabrics_scaleout_share(evaluated, preset, lang):
    scenario, res = evaluated[preset]
    t = Translator(lang)
    names = ui_labels.fabric_names(t)
    doc = report_html(scenario, lang=lang, preset_id=preset)
    domain = _cell_after(doc, t("field.cluster.scaleup_domain_gpus"))
    assert domain.split()[0].split("（")[0] == format_number(res.scaleup_domain_gpus, 0)
    kind = t(f"opt.facility.cooling.{scenario.facility.cooling}")
    assert _cell_after(doc, t("field.facility.cooling")).startswith(kind)
    pue = float(build(scenario).inputs.pue.ravel()[0])  # the PUE the model uses
    assert _cell_after(doc, t("field.facility.pue")).startswith(f"{pue:.2f}")
    assert _cell_after(doc, t("cluster26.rack_limit")) == f"{scenario.facility.rack_power_limit_kw:g} kW"
    assert _cell_after(doc, t("cluster26.racks")).startswith(format_number(rack_plan(scenario).racks, 0))
    rows = _fabric_rows(doc, t)
    assert len(rows) == len(res.fabrics)
    for f, row in zip(res.fabrics, rows, strict=True):
        assert row[0].startswith(names[f.id]) and row[5] == format_share(f.metrics["scaleout_share"], 1)
    summary = doc[doc.index("class='summary'"):doc.index("</div>", doc.index("class='summary'"))]
    rack_scale = res.scaleup_domain_gpus > res.gpus_per_node
    opening = html.escape(t("cluster26.summary", domain=format_number(res.scaleup_domain_gpus, 0), high="\0",
                            high_fabric="\0", low="\0", low_fabric="\0").split("\0")[0])
    assert (opening in summary) == rack_scale  # one sentence, for rack-scale clusters only
    if rack_scale:
        sentence = html.unescape(re.search(rf"<p>({re.escape(opening)}.*?)</p>", summary).group(1))
        shares = [f.metrics["scaleout_share"] for f in res.fabrics]
        worst, best = res.fabrics[shares.index(max(shares))], res.fabrics[shares.index(min(shares))]
        for f in (worst, best):
            assert f"{names[f.id]}" in sentence and format_share(f.metrics["scaleout_share"], 1) in sentence


def test_the_rack_scale_cluster_reads_as_such_and_the_old_one_as_one_air_cooled_server(evaluated):
    """The presets' meaning: NVL72 racks of 18 four-GPU trays on a liquid site; the 2024 A100 case one
    8-GPU server per domain in an air-cooled room with its PUE set."""
    _, nvl = evaluated["gb200-nvl72-8racks"]
    old, res = evaluated["seed-case2-24xA100"]
    assert (nvl.scaleup_domain_gpus, nvl.gpus_per_node) == (72, 4) and res.scaleup_domain_gpus == 8
    assert evaluated["gb200-nvl72-8racks"][0].facility.cooling == "liquid" and old.facility.cooling == "air"
    assert rack_plan(evaluated["gb200-nvl72-8racks"][0]).racks == 8
    t = Translator("en")
    doc = report_html(old, lang="en", preset_id="seed-case2-24xA100")
    assert _cell_after(doc, t("field.cluster.scaleup_domain_gpus")) == t("cluster26.domain_server", domain="8")
    assert _cell_after(doc, t("field.facility.cooling")).startswith(t("opt.facility.cooling.air"))
    assert _cell_after(doc, t("field.facility.pue")) == t("cluster26.pue_set", pue="1.25")


def _rows_by_label(ws) -> dict[str, tuple]:
    return {row[0]: row[1:] for row in ws.iter_rows(values_only=True) if isinstance(row[0], str)}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("preset", PRESETS)
def test_the_workbook_lists_the_fields_with_units_and_the_results_carry_share_and_racks(evaluated, preset, lang):
    scenario, res = evaluated[preset]
    tx = labels(lang)
    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(scenario, lang=lang)))
    inputs = _rows_by_label(wb[tx["sheet_inputs"]])
    assert inputs[tx["inputs"]["domain_gpus"]][:2] == (res.scaleup_domain_gpus, tx["units"]["count"])
    assert inputs[tx["inputs"]["rack_limit_kw"]][:2] == (scenario.facility.rack_power_limit_kw, "kW")
    assert inputs[tx["inputs"]["cooling"]][0] == tx["cooling_kinds"][scenario.facility.cooling]
    built = tx["answer"]["yes" if scenario.facility.build_cooling else "no"]
    assert inputs[tx["inputs"]["build_cooling"]][0] == built
    pue_row = inputs[tx["inputs"]["pue"]]
    assert pue_row[0] == pytest.approx(float(build(scenario).inputs.pue.ravel()[0]))
    assert (pue_row[2] is not None) == (scenario.facility.pue is None)  # says when it follows the cooling
    training = _rows_by_label(wb[tx["sheet_training"]])
    tt = tx["training"]
    share = training[tt["metrics"]["scaleout_share"]]
    for j, f in enumerate(res.fabrics):
        assert share[j] == pytest.approx(f.metrics["scaleout_share"], rel=1e-12)
    assert training[tt["cluster"]["scaleup_domain_gpus"]][0] == res.scaleup_domain_gpus
    assert training[tt["cluster"]["racks"]][0] == rack_plan(scenario).racks


def _csv(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("preset", PRESETS)
def test_the_csv_carries_domain_cooling_site_and_every_fabrics_scaleout_share(evaluated, preset, lang):
    scenario, res = evaluated[preset]
    head = None if lang == "en" else yaml.safe_load(HEADERS_FILE.read_text(encoding="utf-8"))[lang]

    def col(key: str) -> str:
        return key if head is None else head[key]

    rows = _csv(results_csv(res, lang=lang, scenario=scenario))
    assert len(rows) == len(res.fabrics)
    cooling = scenario.facility.cooling if head is None else head[f"cooling_{scenario.facility.cooling}"]
    for f, row in zip(res.fabrics, rows, strict=True):
        assert row[col("fabric")] == f.id
        assert int(row[col("scaleup_domain_gpus")]) == res.scaleup_domain_gpus
        assert row[col("cooling")] == cooling
        assert float(row[col("pue")]) == pytest.approx(float(build(scenario).inputs.pue.ravel()[0]))
        assert float(row[col("rack_power_limit_kw")]) == scenario.facility.rack_power_limit_kw
        assert int(row[col("racks")]) == rack_plan(scenario).racks
        assert float(row[col("scaleout_share")]) == pytest.approx(f.metrics["scaleout_share"], abs=5e-5)
    yearly = _csv(yearly_csv(res, lang=lang, scenario=scenario))
    assert {int(r[col("scaleup_domain_gpus")]) for r in yearly} == {res.scaleup_domain_gpus}


def test_a_csv_without_its_scenario_keeps_the_columns_empty(evaluated):
    _, res = evaluated["b300-128"]
    row = _csv(results_csv(res))[0]
    assert row["scaleup_domain_gpus"] == "8" and row["cooling"] == row["racks"] == ""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("preset", ["gb200-nvl72-8racks", "seed-case2-24xA100"])
def test_the_deck_names_domain_and_cooling_and_shows_the_scaleout_share(evaluated, preset, lang):
    scenario, res = evaluated[preset]
    t = Translator(lang)
    deck = build_deck(scenario, lang, preset)
    slides = list(deck.prs.slides)
    assumptions = next(s for s in slides if any(sh.has_text_frame and sh.text_frame.text == t("pdf.assumptions")
                                                for sh in s.shapes))
    words = " ".join(sh.text_frame.text for sh in assumptions.shapes if sh.has_text_frame)
    assert t("opt.facility.cooling." + scenario.facility.cooling) in words
    assert t("cluster26.domain_racks" if res.scaleup_domain_gpus > res.gpus_per_node else "cluster26.domain_server",
             domain=format_number(res.scaleup_domain_gpus, 0),
             servers=format_number(res.scaleup_domain_gpus // res.gpus_per_node, 0),
             g=format_number(res.gpus_per_node, 0)) in words
    kpi = next(s for s in slides if any(sh.has_text_frame and sh.text_frame.text == t("rpt.kpi_title")
                                        for sh in s.shapes))
    table = next(sh.table for sh in kpi.shapes if sh.has_table)
    column = [table.cell(i, len(table.columns) - 1).text for i in range(len(table.rows))]
    assert column[0] == t("cluster26.col_scaleout")
    assert column[1:] == [format_share(f.metrics["scaleout_share"], 1) for f in res.fabrics]
