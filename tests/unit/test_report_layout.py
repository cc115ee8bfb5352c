"""The PDF report's HTML, laid out for 2-20 fabrics: the summary first (title, cluster and model),
per-fabric detail in the appendix, numbers that never wrap, integers shown as integers, the
defaults as one table per six fabrics with numbered sources, charts taller with longer legends."""

from __future__ import annotations

import html
import re

import pytest

import costmodel
from costmodel.catalog.loader import load_catalog
from costmodel.scenario.changes import with_change
from webui.i18n.translator import Translator
from webui.reports.doc_money import DocumentMoney
from webui.reports.html import CHART_H, FABRICS_PER_TABLE, report_html


def _scenario(fabrics: int) -> costmodel.Scenario:
    s = costmodel.load_preset("seed-intro-32xA100")
    s = with_change(with_change(s, "cluster.gpu", "h100").scenario, "cluster.nodes", 64).scenario
    every = list(load_catalog().fabrics)
    return with_change(s, "fabrics", (list(s.fabrics) + [f for f in every if f not in s.fabrics])[:fabrics]).scenario


@pytest.fixture(scope="module")
def twelve() -> tuple[costmodel.Scenario, str]:
    s = _scenario(12)
    return s, report_html(s, "zh", "seed-intro-32xA100", "CNY", 7.1)


def _at(doc: str, tag: str, text: str) -> int:
    """Where the heading ``<tag …>text</tag>`` starts (headings carry the contents' anchors)."""
    return re.search(rf"<{tag}[^>]*>{re.escape(text)}</{tag}>", doc).start()


def test_the_cover_names_the_cluster_and_the_summary_comes_first(twelve):
    _, doc = twelve
    t = Translator("zh")
    cover_page = doc[doc.index("<div class='cover'>"):doc.index("<div class='toc'>")]
    assert "<p class='title'>64 × H100 · 500 亿参数 · 训练</p>" in cover_page
    assert "64 个节点 × 每节点 8 块 NVIDIA H100 80 GB SXM（共 512 块 GPU）· 模型 500 亿参数" in cover_page
    summary = doc[doc.index("<div class='summary'>"):_at(doc, "h2", t("prop.key_figures"))]
    assert t("pdf.summary") in summary and "data-fig='0'" in summary  # the headline chart
    figures = doc[_at(doc, "h2", t("prop.key_figures")):_at(doc, "h2", t("pdf.charts"))]
    assert t("work.title") in figures and t("rpt.kpi_title") in figures
    assert doc.index("<div class='toc'>") < doc.index("<div class='summary'>")
    assert "已修改" not in doc and "64.00" not in doc


def test_per_fabric_detail_is_an_appendix_after_the_disclaimer(twelve):
    _, doc = twelve
    t = Translator("zh")
    appendix = doc.index("<div class='appendix'>")
    assert doc.index(t("pdf.disclaimer_title")) < appendix
    for heading in (t("bom.title"), t("pdf.cash_flows"), t("pdf.assumptions")):
        assert _at(doc, "h2", heading) > appendix, heading


def test_money_cells_never_wrap(twelve):
    s, doc = twelve
    res = costmodel.evaluate(s)
    money = DocumentMoney(res.currency, "CNY", 7.1, lang="zh")
    cells = dict((html.unescape(text), cls) for cls, text in re.findall(r"<td( class='[^']*')?>([^<]*)</td>", doc))
    for f in res.fabrics:
        for value in (money(f.npv), money(f.tco_total), money(f.delta_vs_baseline, signed=True)):
            assert "nw" in cells[value], (f.id, value)
    assert "nw" not in (cells.get("TCP/IP 以太网 100 GbE") or "")  # text may wrap


def test_defaults_are_one_table_per_six_fabrics_with_numbered_sources(twelve):
    s, doc = twelve
    t = Translator("zh")
    section = doc[_at(doc, "h2", t("pdf.assumptions")):]
    tables = section.count("<table>")
    assert tables == 1 + -(-len(s.fabrics) // FABRICS_PER_TABLE)  # the GPU's prices, then the fabrics
    sources = re.findall(r"<li>\[(\d+)\] ", section)
    assert sources == [str(i) for i in range(1, len(sources) + 1)] and len(sources) >= 10
    cited = {int(n) for n in re.findall(r"\[(\d+)\]</td>", section)}
    assert cited == set(range(1, len(sources) + 1))  # every source cited, every citation listed


def test_charts_grow_with_their_legends(twelve):
    _, doc = twelve
    detail = r"data-fig='[1-9]\d*' data-h='(\d+)'"  # the charts section (the summary's headline is smaller)
    heights = [int(h) for h in re.findall(detail, doc)]
    assert min(heights) >= CHART_H and max(heights) > CHART_H
    few = [int(h) for h in re.findall(detail, report_html(_scenario(2), "en"))]
    assert sum(few) < sum(heights[:len(few)]) and CHART_H in few
