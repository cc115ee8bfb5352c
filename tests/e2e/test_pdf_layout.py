"""The PDF a Chinese customer takes away (64 × H100, 4 and 12 fabrics): the summary is the first
page and names the cluster, numbers never break, search finds 网络 on the chart pages, and the page
count grows slowly with fabrics (the detail per fabric is an appendix)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from need import missing
from pypdf import PdfReader

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.scenario.changes import with_change
from webui.reports.doc_money import DocumentMoney

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
LOOK_ALIKES = re.compile("[\u2e80-\u2fdf\u31c0-\u31ef\ufb00-\ufb06]")  # radicals, strokes, Latin ligatures
TITLE = "64 × H100 · 500 亿参数 · 训练"
# measured 13 and 19-20 when written (it was 17 and 39); then 3 pages of front matter: cover, contents, key figures
# measured 13 and 19-20 when written (it was 17 and 39); then 3 pages of front matter: cover, contents, key figures
MAX_PAGES = {4: 18, 12: 25}


def _scenario(fabrics: int) -> costmodel.Scenario:
    s = costmodel.load_preset("seed-intro-32xA100")
    s = with_change(with_change(s, "cluster.gpu", "h100").scenario, "cluster.nodes", 64).scenario
    every = list(load_catalog().fabrics)
    return with_change(s, "fabrics", (list(s.fabrics) + [f for f in every if f not in s.fabrics])[:fabrics]).scenario


@pytest.fixture(scope="module", params=[4, 12])
def report(request, root, tmp_path_factory):
    if not os.path.exists(CHROMIUM):
        missing(f"the PDF report needs {CHROMIUM}")
    out = tmp_path_factory.mktemp("pdf")
    scenario = _scenario(request.param)
    (out / "s.json").write_text(scenario.model_dump_json(), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "webui.cli", "report", str(out / "s.json"), "--lang", "zh",
                           "--currency", "CNY", "--fx", "7.1",
                           "--pdf", str(out / "r.pdf")], cwd=root, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    pages = [p.extract_text() for p in PdfReader(str(out / "r.pdf")).pages]  # raw: no normalisation
    return request.param, scenario, pages


def test_the_cover_names_the_cluster_and_the_summary_follows_the_contents(report):
    _, scenario, pages = report
    cover, contents, summary = pages[:3]
    assert TITLE in cover and "64 个节点" in cover and "NVIDIA H100 80 GB SXM" in cover and "500 亿参数" in cover
    assert "目录" in contents and "执行摘要" in summary
    res = costmodel.evaluate(scenario)
    money = DocumentMoney(res.currency, "CNY", 7.1, lang="zh")
    for f in res.fabrics:  # every fabric's row on the summary page, each NPV whole on one line
        assert money(f.npv) in summary, (f.id, money(f.npv))
    assert "已修改" not in "".join(pages) and "文章引言" not in summary


def test_numbers_are_whole_and_integers_plain(report):
    _, _, pages = report
    text = "\n".join(pages)
    assert not re.search(r"[−-]\s*\n\s*[¥$€]", text)  # no minus sign alone at a line's end
    assert "64.00" not in text


def test_search_finds_real_characters_on_every_page_with_charts(report):
    _, _, pages = report
    assert not LOOK_ALIKES.findall("".join(pages))
    chart_pages = [p for p in pages if "TCO 构成" in p or "按月累计成本" in p or "成本与节点数" in p]
    assert chart_pages and all("网络" in p for p in chart_pages)
    assert "InfiniBand" in "".join(pages)


def test_pages_grow_slowly_with_fabrics_and_the_detail_is_an_appendix(report):
    fabrics, _, pages = report
    assert len(pages) <= MAX_PAGES[fabrics], len(pages)
    appendix = next(i for i, p in enumerate(pages) if i > 1 and "附录：各网络明细" in p)  # not the contents
    for heading in ("年度现金流", "假设及其来源", "物料清单"):
        assert any(heading in p for p in pages[appendix:]), heading
        assert not any(heading in p for p in pages[2:appendix]), heading
