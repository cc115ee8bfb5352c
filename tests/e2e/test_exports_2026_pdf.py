"""The printed PDF of a rack-scale cluster (gb200-nvl72-8racks; Chromium, read back with pypdf), in zh and
en: the executive summary keeps to one page with its sentence on the scale-out share, and the input
table's scale-up domain, cooling, PUE and racks and each fabric's scale-out share are in the text a
reader searches and copies."""

from __future__ import annotations

import os
import re
import unicodedata
from io import BytesIO

import pytest
from need import missing
from pypdf import PdfReader

import costmodel
from costmodel.catalog.formatting import format_share
from costmodel.pipeline.facility_checks import cluster_facts
from webui.i18n import labels
from webui.i18n.translator import Translator
from webui.reports.html import report_pdf
from webui.sections import cluster_facts as words

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
PRESET = "gb200-nvl72-8racks"


def _flat(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


@pytest.fixture(scope="module", params=["zh", "en"])
def printed(request) -> tuple[str, list[str]]:
    if not os.path.exists(CHROMIUM):
        missing(f"the PDF report needs {CHROMIUM}")
    pdf = report_pdf(costmodel.load_preset(PRESET), request.param, PRESET)
    return request.param, [_flat(p.extract_text()) for p in PdfReader(BytesIO(pdf)).pages]


def test_the_summary_says_the_scaleout_share_and_stays_on_one_page(printed):
    lang, pages = printed
    t = Translator(lang)
    scenario = costmodel.load_preset(PRESET)
    res = costmodel.evaluate(scenario)
    sentence = words.scaleout_sentence(t, res, cluster_facts(scenario), labels.fabric_names(t))
    assert sentence and _flat(sentence) in pages[2]
    assert _flat(t("pdf.summary")) in pages[2] and _flat(t("prop.key_figures")) not in pages[2]
    assert _flat(t("prop.key_figures")) in pages[3]


def test_the_input_table_and_the_fabric_table_are_in_the_text(printed):
    lang, pages = printed
    t = Translator(lang)
    scenario = costmodel.load_preset(PRESET)
    res = costmodel.evaluate(scenario)
    start = next(i for i, p in enumerate(pages) if _flat(t("rtrain.plan")) in p and i > 2)
    text = "".join(pages[start:start + 2])
    for label, value in words.rows(t, cluster_facts(scenario)):
        assert _flat(label + value) in text, label
    assert _flat(t("cluster26.col_scaleout")) in text
    for f in res.fabrics:
        assert _flat(format_share(f.metrics["scaleout_share"], 1)) in text, f.id
