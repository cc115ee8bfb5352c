"""One layout text ("TP 8 × PP 4 × DP 16, ZeRO-1, …") for the pages and the workbook
(costmodel/exports/layout_text.py): both callers give exactly the strings they gave before it was shared
(written here literally from their output of commit 20fac22), in English and Chinese."""

from __future__ import annotations

import pytest

import costmodel
from costmodel.exports import layout_text
from costmodel.exports import training_sheet as export_training
from costmodel.exports.workbook import labels as export_labels
from costmodel.scenario.changes import with_change
from webui.i18n import layouts
from webui.i18n.translator import Translator

LAYOUTS = [
    dict(layout_tp=8, layout_pp=4, layout_dp=16, layout_vp=1, layout_zero=1, layout_micro_seqs=1,
         layout_recompute=0),
    dict(layout_tp=4, layout_pp=8, layout_dp=1024, layout_vp=2, layout_zero=1, layout_micro_seqs=2.5,
         layout_recompute=1),
    dict(layout_tp=1, layout_pp=1, layout_dp=64, layout_vp=None, layout_zero=3, layout_micro_seqs=4,
         layout_recompute=0),
    dict(layout_tp=8, layout_pp=2, layout_dp=None, layout_vp=3, layout_zero=1, layout_micro_seqs=1.25,
         layout_recompute=1.0),
]
TODAY = {
    "en": ["TP 8 × PP 4 × DP 16, ZeRO-1, micro-batch 1",
           "TP 4 × PP 8 × DP 1,024, 2 chunks per stage, ZeRO-1, micro-batch 2.5, full recomputation",
           "TP 1 × PP 1 × DP 64, ZeRO-3, micro-batch 4",
           "TP 8 × PP 2 × DP —, 3 chunks per stage, ZeRO-1, micro-batch 1.2, full recomputation"],
    "zh": ["张量并行 8 × 流水线 4 × 数据并行 16，ZeRO-1，微批次 1 条序列",
           "张量并行 4 × 流水线 8 × 数据并行 1,024，每级 2 个交错块，ZeRO-1，微批次 2.5 条序列，完全重计算",
           "张量并行 1 × 流水线 1 × 数据并行 64，ZeRO-3，微批次 4 条序列",
           "张量并行 8 × 流水线 2 × 数据并行 —，每级 3 个交错块，ZeRO-1，微批次 1.2 条序列，完全重计算"],
}
#: a searched layout of a real result (seed-case3-128xH100, parallelism "best"), as it read before
SEARCHED = {"en": "TP 8 × PP 32 × DP 4, ZeRO-1, micro-batch 1",
            "zh": "张量并行 8 × 流水线 32 × 数据并行 4，ZeRO-1，微批次 1 条序列"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_pages_and_workbook_write_the_layout_as_before(lang):
    t, tt = Translator(lang), export_labels(lang)["training"]
    for m, want in zip(LAYOUTS, TODAY[lang], strict=True):
        assert layouts.layout_text(t, m) == want
        assert export_training.layout_text(tt, m) == want


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_searched_layout_of_a_result_reads_as_before(lang):
    s = with_change(costmodel.load_preset("seed-case3-128xH100"), "workload.parallelism", "best").scenario
    m = costmodel.evaluate(s).fabric("tcp-100").metrics
    assert layouts.layout_text(Translator(lang), m) == SEARCHED[lang]
    assert export_training.layout_text(export_labels(lang)["training"], m) == SEARCHED[lang]


def test_the_shared_function_takes_its_texts_as_a_mapping():
    texts = {"text": "{tp}/{pp}/{dp}", "chunks": "v{vp}", "zero": "z{zero}", "micro": "b{b}", "recompute": "R",
             "sep": " | "}
    assert layout_text.layout_text(texts, LAYOUTS[1]) == "4/8/1,024 | v2 | z1 | b2.5 | R"
    assert layout_text.layout_text(texts, LAYOUTS[2]) == "1/1/64 | z3 | b4"
    assert set(layout_text.KEYS) == set(texts)
    with pytest.raises(KeyError, match="chunks"):
        layout_text.layout_text({k: v for k, v in texts.items() if k != "chunks"}, LAYOUTS[1])
