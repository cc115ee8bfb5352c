"""The PDF report: printed by Debian's Chromium; checked by extracting its text (pypdf).

The files come from the command line (``python -m webui.cli report``), which the container runs
too; the Report page's queue is tested in tests/e2e/test_report_page.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unicodedata

import pytest
from need import missing
from pypdf import PdfReader

import costmodel
from costmodel.catalog.loader import load_catalog
from webui.i18n.translator import Translator
from webui.reports.doc_money import DocumentMoney

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def _require_chromium() -> None:
    if not os.path.exists(CHROMIUM):
        missing(f"the PDF report needs {CHROMIUM}")


def _text(path) -> str:
    reader = PdfReader(str(path))
    return unicodedata.normalize("NFKC", "\n".join(page.extract_text() for page in reader.pages))


def _flat(text: str) -> str:
    """Text without any white space: table cells wrap lines anywhere."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def _fonts(path) -> list[tuple[str, bool]]:
    """(subtype, embedded) of every font: Type3 glyphs live in the file; others need a FontFile."""
    out = []
    for page in PdfReader(str(path)).pages:
        for font in ((page.get("/Resources") or {}).get("/Font") or {}).values():
            font = font.get_object()
            subtype = str(font.get("/Subtype"))
            desc = font.get("/FontDescriptor")
            if desc is None and "/DescendantFonts" in font:
                desc = font["/DescendantFonts"][0].get_object().get("/FontDescriptor")
            desc = desc.get_object() if desc is not None else {}
            out.append((subtype, subtype == "/Type3" or any(k in desc for k in ("/FontFile", "/FontFile2",
                                                                                  "/FontFile3"))))
    return out


def _report(root, path, *args) -> None:
    proc = subprocess.run([sys.executable, "-m", "webui.cli", "report", *args, "--pdf", str(path)], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.fixture(scope="module")
def reports(root, tmp_path_factory):
    _require_chromium()
    out = tmp_path_factory.mktemp("pdf")
    data = costmodel.load_preset("seed-intro-32xA100").model_dump()
    data["name"] = "<script>alert(1)</script> =HYPERLINK(\"x\")"
    scenario_file = out / "s.json"
    scenario_file.write_text(costmodel.Scenario.model_validate(data).model_dump_json(), encoding="utf-8")
    paths = {}
    for lang in ("en", "zh"):
        paths[lang] = out / f"report-{lang}.pdf"
        _report(root, paths[lang], str(scenario_file), "--lang", lang)
    return paths, costmodel.Scenario.model_validate(data)


@pytest.fixture(scope="module")
def cny_report(root, tmp_path_factory):
    _require_chromium()
    path = tmp_path_factory.mktemp("pdf") / "cny.pdf"
    _report(root, path, "--preset", "seed-case2-24xA100", "--currency", "CNY", "--fx", "7.1")
    return path


@pytest.fixture(scope="module")
def zh_preset_report(root, tmp_path_factory):
    _require_chromium()
    path = tmp_path_factory.mktemp("pdf") / "zh.pdf"
    _report(root, path, "--preset", "seed-intro-32xA100", "--lang", "zh", "--currency", "CNY")
    return path


def test_pdf_contains_every_tco_as_the_app_formats_it(reports):
    paths, scenario = reports
    res = costmodel.evaluate(scenario)
    for lang, path in paths.items():
        money = DocumentMoney(res.currency, res.currency, 1.0, lang=lang)  # the report's one way of writing money
        text = _text(path).replace("\n", " ")
        for f in res.fabrics:
            assert money(f.tco_total) in text, f.id


def test_fonts_are_embedded_and_chinese_is_text(reports):
    paths, _ = reports
    for path in paths.values():
        fonts = _fonts(path)
        assert fonts and all(embedded for _, embedded in fonts), fonts
    zh = _text(paths["zh"])
    for heading in ("执行摘要", "年度现金流", "假设及其来源", "准确性说明"):
        assert heading in zh


def test_pdf_in_another_currency_converts_every_figure(cny_report):
    text = _text(cny_report).replace("\n", " ")
    res = costmodel.evaluate(costmodel.load_preset("seed-case2-24xA100"))
    money = DocumentMoney(res.currency, "CNY", 7.1)
    for f in res.fabrics:
        assert money(f.tco_total) in text


def test_prices_in_the_sources_table_are_in_the_report_currency(cny_report):
    flat = _flat(_text(cny_report))
    scenario = costmodel.load_preset("seed-case2-24xA100")
    book = load_catalog().price_book(scenario.price_book)
    money = DocumentMoney(book.currency, "CNY", 7.1)
    for fid in scenario.fabrics:
        for q in ("nic_price", "switch_price"):
            assert _flat(money(getattr(book.fabrics[fid], q).typical)) in flat, (fid, q)
    assert "$" not in flat


def test_source_citations_are_complete(reports):
    flat = _flat(_text(reports[0]["en"]))
    cat = load_catalog()
    book = cat.price_book("public")
    titles = {cat.references[getattr(entry, q).source].title
              for fid in reports[1].fabrics for entry in (cat.fabrics[fid], book.fabrics[fid])
              for q in type(entry).model_fields if hasattr(getattr(entry, q), "typical")}
    long = [t for t in titles if len(t) > 90 and not t.startswith("Engineering estimate")]
    assert long, "the preset cites long source titles"
    for title in long:
        assert _flat(title) in flat, title[:60]


def test_no_pointer_into_the_repository(reports, zh_preset_report):
    for path in (*reports[0].values(), zh_preset_report):
        text = _text(path)
        assert "docs/" not in text and ".md" not in text
    assert "Method page" in _text(reports[0]["en"])
    assert "本应用的“方法”" in _flat(_text(zh_preset_report))


def test_the_resale_drop_in_the_last_year_is_explained(reports):
    paths, scenario = reports
    assert scenario.finance.residual_value_frac > 0
    en = _flat(_text(paths["en"]))
    years = costmodel.evaluate(scenario).horizon_years
    assert _flat(f"Year {years} credits the resale value") in en
    assert _flat("因此累计成本在该年下降") in _flat(_text(paths["zh"]))


def test_title_is_the_scenarios_display_title_in_the_language(zh_preset_report):
    title = Translator("zh")("preset.seed-intro-32xA100")
    assert title != costmodel.load_preset("seed-intro-32xA100").name
    reader = PdfReader(str(zh_preset_report))
    assert reader.metadata.title == title
    assert _flat(title) in _flat(reader.pages[0].extract_text())
    assert "Intro case" not in _text(zh_preset_report)


def test_negotiated_prices_are_not_called_public(root, tmp_path):
    _require_chromium()
    data = costmodel.load_preset("seed-case2-24xA100").model_dump()
    data["custom_price_book"] = {"name": "ACME Q4", "discounts": {"switches": 20.0}}
    scenario_file = tmp_path / "s.json"
    scenario_file.write_text(costmodel.Scenario.model_validate(data).model_dump_json(), encoding="utf-8")
    path = tmp_path / "neg.pdf"
    _report(root, path, str(scenario_file))
    text = _text(path).replace("\n", " ")
    assert "negotiated prices of “ACME Q4”" in text
    assert "public prices" not in text and "public list prices" not in text
    assert "Negotiated price of “ACME Q4”" in text  # the discounted switch prices' source


def test_user_text_is_text_in_the_pdf(reports):
    paths, _ = reports
    text = _text(paths["en"])
    assert "<script>alert(1)</script>" in text
