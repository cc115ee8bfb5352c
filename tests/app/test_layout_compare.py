"""Compare shows the layout each fabric ran at (parallelism "best" chosen on the Cluster page), in
English and in Chinese without stray English; a fixed layout that does not fit memory is warned."""

from __future__ import annotations

import re

import pytest
from apptest_helpers import go, keyed, open_page
from zh_words import latin_words

import costmodel
from costmodel.scenario.changes import with_change

PRESET = "seed-intro-32xA100"
LAYOUT = {"en": re.compile(r"Layout: TP (\d+) × PP (\d+) × DP (\d+)(, \d+ chunks per stage)?, ZeRO-(\d), "
                           r"micro-batch (\d+)"),
          "zh": re.compile(r"布局：张量并行 (\d+) × 流水线 (\d+) × 数据并行 (\d+)(，每级 \d+ 个交错块)?，ZeRO-(\d)，"
                           r"微批次 (\d+) 条序列")}


def _texts(at) -> list[str]:
    return [str(e.value) for e in (*at.markdown, *at.caption, *at.warning)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compare_shows_each_fabrics_searched_layout(lang):
    at = open_page("cluster", lang, p=PRESET)
    keyed(at.selectbox, "w.workload.parallelism").set_value("best").run()
    assert not at.exception
    assert not [n for n in at.number_input if (n.key or "").startswith("w.workload.tensor_parallel")]
    go(at, "compare")
    found = [m for text in _texts(at) for m in LAYOUT[lang].finditer(text)]
    expected = costmodel.evaluate(with_change(costmodel.load_preset(PRESET), "workload.parallelism", "best").scenario)
    keys = ("layout_tp", "layout_pp", "layout_dp")
    assert [tuple(int(g) for g in (m[1], m[2], m[3])) for m in found] == [
        tuple(int(f.metrics[k]) for k in keys) for f in expected.fabrics]
    if lang == "zh":
        shown = [t for t in _texts(at) if "布局" in t or "显存" in t]
        assert shown and not {w for t in shown for w in latin_words(t)}, shown


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_fixed_layout_that_does_not_fit_is_warned(lang):
    at = open_page("cluster", lang, p="seed-case2-24xA100")
    keyed(at.number_input, "w.workload.tensor_parallel").set_value(1).run()
    go(at, "compare")
    warnings = [str(w.value) for w in at.warning]
    needle = {"en": "GB of GPU memory per GPU but only", "zh": "显存，但可用的只有"}[lang]
    assert sum(needle in w for w in warnings) == 4, warnings
    if lang == "zh":
        assert not {w for t in warnings for w in latin_words(t)}, warnings


def test_every_page_runs_with_the_layout_search():
    at = open_page("cluster", "zh", p="seed-case3-128xH100")
    keyed(at.selectbox, "w.workload.parallelism").set_value("best").run()
    for page in ("compare", "scale", "risk", "assumptions", "method", "report"):
        go(at, page)  # asserts no exception


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compare_says_when_no_layout_of_the_grid_fits(lang):
    at = open_page("cluster", lang, p="seed-case1-8xA10")
    keyed(at.selectbox, "w.workload.parallelism").set_value("best").run()
    keyed(at.number_input, "w.workload.model_params_b").set_value(1000.0).run()
    go(at, "compare")
    needle = {"en": "no layout of the search grid fits GPU memory", "zh": "搜索网格中没有能装入 GPU 显存的布局"}[lang]
    warnings = [str(w.value) for w in at.warning]
    assert sum(needle in w for w in warnings) == 4, warnings
