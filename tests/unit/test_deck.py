"""The PowerPoint deck: 10–14 slides in English and Chinese for every preset, native charts whose series
are the model's numbers (in the display currency over the unit the axis names), Chinese without English
words, small enough to e-mail, in the brand of the assets folder, and opened by LibreOffice Impress."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from need import soffice
from PIL import Image
from pptx import Presentation
from zh_words import latin_words

import costmodel
from costmodel.pipeline.tco import CATEGORIES
from costmodel.scenario.presets import list_presets, load_preset
from webui.i18n.translator import Translator, fmt_number
from webui.reports.brand import ENV, BrandError, brand, load_brand
from webui.reports.deck import build_deck, deck_bytes
from webui.reports.deck_detail import monte_carlo

PRESETS = list_presets()
#: the compact units an axis may name, and what each divides by (万 / 亿 in Chinese; k / M / B in English)
UNITS = {"万": 1e4, "亿": 1e8, "k": 1e3, "M": 1e6, "B": 1e9}
MAX_BYTES = 5 * 1024 * 1024  # fits an e-mail


@pytest.fixture(scope="module")
def decks() -> dict[tuple[str, str], bytes]:
    return {(p, lang): deck_bytes(load_preset(p), lang, p) for p in PRESETS for lang in ("en", "zh")}


def _charts(prs) -> list:
    return [sh.chart for slide in prs.slides for sh in slide.shapes if sh.has_chart]


def _divisor(chart) -> float:
    """What the chart's money values are divided by, read from its value axis's title (``[$ M]``, ``（¥ 万）``)."""
    title = chart.value_axis.axis_title.text_frame.text
    unit = re.search(r"[\[（][¥$€]\s?([^\]）]*)[\]）]$", title)
    assert unit, title
    return UNITS.get(unit.group(1).strip(), 1.0) if unit.group(1).strip() else 1.0


def _texts(prs) -> list[str]:
    """Every text a reader sees: text boxes, table cells, chart categories, series names and axis titles."""
    out = []
    for slide in prs.slides:
        for sh in slide.shapes:
            if sh.has_text_frame:
                out.append(sh.text_frame.text)
            if sh.has_table:
                out.extend(c.text for row in sh.table.rows for c in row.cells)
            if sh.has_chart:
                ch = sh.chart
                out.extend(str(c) for c in ch.plots[0].categories)
                out.extend(s.name for s in ch.series)
                for ax in (ch.value_axis, ch.category_axis):
                    if ax.has_title:
                        out.append(ax.axis_title.text_frame.text)
    return out


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_preset_gives_10_to_14_slides_with_native_charts_under_5_mb(decks, preset, lang):
    data = decks[preset, lang]
    assert len(data) < MAX_BYTES
    prs = Presentation(io.BytesIO(data))
    assert 10 <= len(prs.slides) <= 14
    charts = _charts(prs)
    assert len(charts) >= 5  # summary, categories, same work, cumulative, risk (and the tornado)
    for ch in charts:
        assert ch.part.partname.startswith("/ppt/charts/chart")  # a chart part, not a picture
        assert ch.part.chart_workbook.xlsx_part is not None  # its data travels with it: the customer edits it
    assert not [sh for s in prs.slides for sh in s.shapes if sh.shape_type == 13 and sh.width > prs.slide_width / 3]


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_charts_carry_the_models_tco_by_fabric_and_category(decks, preset, lang):
    t = Translator(lang)
    res = costmodel.evaluate(load_preset(preset))
    prs = Presentation(io.BytesIO(decks[preset, lang]))
    cats = [t(f"cat.{c}") for c in CATEGORIES]
    (stacked,) = [ch for ch in _charts(prs) if [s.name for s in ch.series] == cats]
    div = _divisor(stacked)
    for s, c in zip(stacked.series, CATEGORIES, strict=True):
        assert s.values == pytest.approx([f.breakdown[c] / div for f in res.fabrics], rel=1e-9, abs=1e-9)
    (tco,) = [ch for ch in _charts(prs) if [s.name for s in ch.series] == [t("kpi.tco", years=res.horizon_years)]]
    assert tco.series[0].values == pytest.approx([f.tco_total / _divisor(tco) for f in res.fabrics], rel=1e-9)


def test_the_risk_chart_carries_the_monte_carlo_percentiles(decks):
    preset = PRESETS[1]
    deck = build_deck(load_preset(preset), "zh", preset)
    summary = monte_carlo(deck).summary()
    (risk,) = [ch for ch in _charts(deck.prs) if [s.name for s in ch.series] == ["P10", "P50", "P90"]]
    div = _divisor(risk)
    for s in risk.series:
        assert s.values == pytest.approx(list(summary[s.name.lower()] / div), rel=1e-9)
    assert [str(c) for c in risk.plots[0].categories] == [deck.names[f] for f in summary["fabric"]]


def test_money_in_another_currency_is_converted_on_the_charts():
    preset = PRESETS[0]
    res = costmodel.evaluate(load_preset(preset))
    deck = build_deck(load_preset(preset), "en", preset, currency="EUR", rate=0.5)
    (tco,) = [ch for ch in _charts(deck.prs) if [s.name for s in ch.series] == [deck.t("kpi.tco", years=5)]]
    assert "€" in tco.value_axis.axis_title.text_frame.text
    assert tco.series[0].values == pytest.approx([0.5 * f.tco_total / _divisor(tco) for f in res.fabrics], rel=1e-9)


@pytest.mark.parametrize("preset", PRESETS)
def test_the_chinese_deck_has_no_english_words(decks, preset):
    b = brand()
    contact = set(re.findall(r"[A-Za-z][A-Za-z0-9]*", " ".join((b.contact.email, b.contact.web, b.contact.phone))))
    prs = Presentation(io.BytesIO(decks[preset, "zh"]))
    found = {w: text[:80] for text in _texts(prs) for w in latin_words(text, contact)}
    assert not found


def test_the_command_line_writes_the_deck_in_the_language_and_currency_asked_for(tmp_path):
    from webui import cli

    out = tmp_path / "d.pptx"
    assert cli.main(["report", "--preset", PRESETS[0], "--lang", "zh", "--currency", "EUR", "--pptx", str(out)]) == 0
    prs = Presentation(str(out))
    assert 10 <= len(prs.slides) <= 14
    text = " ".join(_texts(prs))
    assert Translator("zh")("deck.subtitle") in text and "€" in text


def test_the_brand_is_checked_field_by_field(tmp_path):
    good = Path(brand().folder)
    for f in good.iterdir():
        shutil.copy(f, tmp_path / f.name)
    doc = (tmp_path / "brand.yaml").read_text(encoding="utf-8")
    (tmp_path / "brand.yaml").write_text(doc.replace('primary: "#1F4E79"', 'primary: "navy"'), encoding="utf-8")
    with pytest.raises(BrandError, match=r"colors\.primary"):
        load_brand(tmp_path)
    (tmp_path / "brand.yaml").write_text(doc.replace("logo_png: logo.png", "logo_png: missing.png"), encoding="utf-8")
    with pytest.raises(BrandError, match="logo_png"):
        load_brand(tmp_path)
    (tmp_path / "brand.yaml").write_text(doc.replace("name_zh:", "nom_zh:"), encoding="utf-8")
    with pytest.raises(BrandError, match="name_zh"):
        load_brand(tmp_path)


def test_another_assets_folder_changes_the_decks_colours_logo_and_company(tmp_path, monkeypatch):
    for f in Path(brand().folder).iterdir():
        shutil.copy(f, tmp_path / f.name)
    doc = (tmp_path / "brand.yaml").read_text(encoding="utf-8")
    doc = doc.replace('primary: "#1F4E79"', 'primary: "#8A1538"')
    doc = doc.replace("name: Fabric TCO Planner", "name: Acme Networks")
    (tmp_path / "brand.yaml").write_text(doc, encoding="utf-8")
    Image.new("RGB", (40, 10), "#8A1538").save(tmp_path / "logo.png")
    monkeypatch.setenv(ENV, str(tmp_path))
    preset = PRESETS[0]
    prs = Presentation(io.BytesIO(deck_bytes(load_preset(preset), "en", preset)))
    assert "Acme Networks" in " ".join(_texts(prs))
    pictures = [sh for sh in prs.slides[1].shapes if sh.shape_type == 13]
    assert pictures and pictures[0].image.blob == (tmp_path / "logo.png").read_bytes()
    fills = {str(c.fill.fore_color.rgb) for sh in prs.slides[4].shapes if sh.has_table
             for c in sh.table.rows[0].cells}
    assert fills == {"8A1538"}


def test_libreoffice_impress_opens_every_deck_with_one_page_per_slide(decks, tmp_path):
    exe = soffice()
    paths = []
    for (preset, lang), data in decks.items():
        p = tmp_path / f"{preset}-{lang}.pptx"
        p.write_bytes(data)
        paths.append(p)
    profile = tmp_path / "profile"
    subprocess.run([exe, f"-env:UserInstallation={profile.as_uri()}", "--headless", "--norestore",
                    "--convert-to", "pdf", "--outdir", str(tmp_path / "pdf"), *map(str, paths)],
                   check=True, capture_output=True, timeout=300)
    for p in paths:
        pdf = (tmp_path / "pdf" / p.name).with_suffix(".pdf")
        assert pdf.is_file(), f"LibreOffice could not open {p.name}"
        pages = len(re.findall(rb"/Type\s*/Page(?!s)", pdf.read_bytes()))
        assert pages == len(Presentation(str(p)).slides)


def test_a_plan_no_fabric_delivers_gets_a_same_work_slide_without_a_chart():
    """A 671 B plan on two H800 servers: no fabric's cluster delivers it within the node limit; the
    same-work slide lists each fabric as not delivering instead of an empty chart."""
    base = load_preset("serving-deepseek-v3-h800").model_dump(mode="json")
    base["workload"].update(model_params_b=671.0)
    scenario = costmodel.scenario_from_dict(base)
    res = costmodel.evaluate(scenario)
    assert res.equal_work is not None and not any(res.equal_work.feasible)
    t = Translator("en")
    prs = Presentation(io.BytesIO(deck_bytes(scenario, "en", "serving-deepseek-v3-h800")))
    (slide,) = [s for s in prs.slides if any(sh.has_text_frame and sh.text_frame.text == t("work.title")
                                              for sh in s.shapes)]
    assert not any(sh.has_chart for sh in slide.shapes)
    cells = [c.text for sh in slide.shapes if sh.has_table for row in sh.table.rows for c in row.cells]
    refused = t("work.none", max=fmt_number(res.equal_work.max_nodes))
    assert cells.count(refused) == len(scenario.fabrics)
