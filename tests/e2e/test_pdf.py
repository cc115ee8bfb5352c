"""The PDF report: printed by Debian's Chromium; checked by extracting its text (pypdf)."""

from __future__ import annotations

import os
import subprocess
import sys
import unicodedata

import pytest
from need import missing
from pypdf import PdfReader

import costmodel
from costmodel.formatting import format_money

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def _require_chromium() -> None:
    if not os.path.exists(CHROMIUM):
        missing(f"the PDF report needs {CHROMIUM}")


def _text(path) -> str:
    reader = PdfReader(str(path))
    return unicodedata.normalize("NFKC", "\n".join(page.extract_text() for page in reader.pages))


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
        proc = subprocess.run([sys.executable, "-m", "costmodel", "report", str(scenario_file), "--lang", lang,
                               "--pdf", str(paths[lang])], cwd=root, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
    return paths, costmodel.Scenario.model_validate(data)


def test_pdf_contains_every_tco_as_the_model_formats_it(reports):
    paths, scenario = reports
    res = costmodel.evaluate(scenario)
    for path in paths.values():
        text = _text(path)
        for f in res.fabrics:
            assert format_money(f.tco_total, res.currency) in text.replace("\n", " "), f.id


def test_fonts_are_embedded_and_chinese_is_text(reports):
    paths, _ = reports
    for path in paths.values():
        fonts = _fonts(path)
        assert fonts and all(embedded for _, embedded in fonts), fonts
    zh = _text(paths["zh"])
    for heading in ("执行摘要", "年度现金流", "假设及其来源", "准确性说明"):
        assert heading in zh


def test_pdf_in_another_currency_converts_every_figure(root, tmp_path):
    _require_chromium()
    path = tmp_path / "cny.pdf"
    proc = subprocess.run([sys.executable, "-m", "costmodel", "report", "--preset", "seed-case2-24xA100", "--pdf",
                           str(path), "--currency", "CNY", "--fx", "7.1"], cwd=root, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = _text(path).replace("\n", " ")
    res = costmodel.evaluate(costmodel.load_preset("seed-case2-24xA100"))
    for f in res.fabrics:
        assert format_money(f.tco_total * 7.1, "CNY") in text


def test_user_text_is_text_in_the_pdf(reports):
    paths, _ = reports
    text = _text(paths["en"])
    assert "<script>alert(1)</script>" in text
