"""What is typed into a number box reaches the model exactly or is refused with the field's label and
range: ``1e12`` nodes and ``2.5`` nodes are never cut to 1 and 2 (the browser reads a count's box with
``parseFloat``: its data type is float), and a cluster too large to train says why in words."""

from __future__ import annotations

import re

import pytest
from apptest_helpers import go, keyed, open_page, open_tab
from streamlit.proto.NumberInput_pb2 import NumberInput

from webui.i18n.translator import Translator, catalog
from webui.inputs import widgets
from webui.panels import lazy_tabs

ZH = Translator("zh")
FLOAT = NumberInput.DataType.FLOAT  # the browser reads the box with parseFloat


def _errors(at) -> str:
    return " ".join(e.value.replace("\\", "") for e in at.error)


def _path(key: str) -> str:
    return re.sub(r"~\d+$", "", key.split("#")[0]).removeprefix("w.")


def test_every_numeric_box_of_the_cluster_page_sends_what_was_typed_and_has_no_browser_bounds():
    """No box is an integer box (``parseInt("1e12")`` is 1) and none carries a min/max of its own
    (the browser's refusal would be in English)."""
    at = open_page("cluster", lang="zh")
    boxes = [b for b in at.number_input if (b.key or "").startswith("w.")]
    assert len(boxes) >= 30
    for box in boxes:
        assert box.proto.data_type == FLOAT, box.key
        assert not box.proto.has_min and not box.proto.has_max, box.key


@pytest.mark.parametrize("typed", [1e12, -1e12])
def test_every_numeric_field_refuses_a_huge_number_with_its_label_and_range(typed):
    """``1e12`` (or ``-1e12``) in any field of the Cluster page: the field's label and its range are
    named, the number is written out in full, and the scenario keeps its value."""
    at = open_page("cluster", lang="zh")
    paths = [_path(b.key) for b in at.number_input if (b.key or "").startswith("w.")]
    for path in paths:
        before = at.session_state["scenario"].model_dump()
        keyed(at.number_input, "w." + path).set_value(typed).run()
        shown = _errors(at)
        label = keyed(at.number_input, "w." + path).label
        assert label in shown and "1,000,000,000,000" in shown and "…" in shown, (path, shown)
        assert "e+" not in shown, (path, shown)
        assert at.session_state["scenario"].model_dump() == before, path


def test_a_fraction_of_a_count_is_refused_and_a_whole_float_is_taken():
    zh = catalog("zh")
    at = open_page("cluster", lang="zh")
    nodes = at.session_state["scenario"].cluster.nodes
    keyed(at.number_input, "w.cluster.nodes").set_value(2.5).run()
    shown = _errors(at)
    assert zh["field.cluster.nodes"] in shown and "2.5 不是整数" in shown and "1 … 10 万" in shown
    assert at.session_state["scenario"].cluster.nodes == nodes
    keyed(at.number_input, "w.cluster.nodes").set_value(48.0).run()
    assert not at.error
    assert at.session_state["scenario"].cluster.nodes == 48
    assert isinstance(at.session_state["scenario"].cluster.nodes, int)


def test_every_count_on_the_cluster_page_refuses_a_fraction():
    at = open_page("cluster", lang="en")
    counts = [p for p in (_path(b.key) for b in at.number_input if (b.key or "").startswith("w."))
              if widgets._is_int(p)]
    assert "cluster.nodes" in counts and "workload.layers" in counts
    for path in counts:
        before = at.session_state["scenario"].model_dump()
        keyed(at.number_input, "w." + path).set_value(2.5).run()
        assert "2.5 is not a whole number" in _errors(at), path
        assert at.session_state["scenario"].model_dump() == before, path


def test_ranges_are_written_in_the_readers_units_not_in_scientific_notation():
    at = open_page("cluster", lang="zh")
    helps = " ".join(b.help or "" for b in at.number_input)
    assert "e+" not in helps and "1 … 10 万" in helps
    placeholders = [b.proto.placeholder for b in at.number_input if b.proto.placeholder]
    assert placeholders and not [p for p in placeholders if "e+" in p], placeholders
    at = open_page("cluster", lang="en")
    assert "1 … 100,000" in keyed(at.number_input, "w.cluster.nodes").help


def test_the_largest_cluster_says_it_fails_faster_than_it_restarts():
    """At the allowed maximum (100 000 nodes) no share of the year above 100 % is shown: the warning
    gives the interval between failures and the restart time, both in minutes."""
    at = open_page("cluster", lang="zh")
    keyed(at.number_input, "w.cluster.nodes").set_value(100_000.0).run()
    go(at, "compare")
    warnings = [w.value for w in at.warning if "无法完成年度计划" in w.value]
    assert warnings
    for text in warnings:
        assert "集群故障比重启还快" in text and "100,000 个节点" in text
        mtbf, restart = (float(x) for x in re.findall(r"([\d.]+) 分钟", text)[:2])
        assert 0 < mtbf < restart
        assert not re.search(r"\d{4,}%", text)


@pytest.mark.parametrize(("typed", "expect"), [(2.5, "2.5 不是整数"), (1e12, "1,000,000,000,000 超出允许范围")])
def test_the_monte_carlo_seed_refuses_fractions_and_huge_numbers_in_chinese(typed, expect):
    at = open_tab(open_page("risk", lang="zh"), lazy_tabs.RISK, "mc", lang="zh")
    at.number_input(key="risk_seed").set_value(typed).run()
    shown = _errors(at)
    assert ZH("risk.seed") in shown and expect in shown
    assert not at.exception


def test_an_exchange_rate_out_of_range_is_named_and_the_rate_used_is_said():
    """The sidebar's rate box has no browser bounds (their refusal is English): the page names the
    range and the reference rate it uses instead."""
    at = open_page("compare", lang="zh")
    at.number_input(key="fx").set_value(1e9).run()
    shown = _errors(at)
    assert "1,000,000,000 超出允许范围" in shown and "现使用汇率" in shown, shown
    assert not at.exception
