"""One writer of the scenario: ``webui.session.state`` alone puts the scenario (and its preset) into the
session; widgets never hold a second copy that has to be popped or re-synced — their keys carry
the scenario's revision, so a preset or a load shows its values in fresh widgets."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from apptest_helpers import go, keyed, open_page

import costmodel
from webui.i18n.translator import catalog

ROOT = Path(__file__).resolve().parents[2]
UI = [ROOT / "app.py", *sorted((ROOT / "app_pages").glob("*.py")), *sorted((ROOT / "webui").rglob("*.py"))]
SCENARIO_KEYS = {"session.KEY_SCENARIO", "session.KEY_PRESET", "session.KEY_REVISION", "KEY_SCENARIO", "KEY_PRESET",
                 "KEY_REVISION", "'scenario'", "'preset'", "'scenario_rev'"}


def _is_state(node: ast.AST) -> bool:
    return ast.unparse(node).endswith("session_state")


def state_writes(path: Path) -> list[tuple[int, str]]:
    """(line, key) of every write into ``st.session_state`` in a module: assignment, deletion,
    ``pop``/``setdefault``/``update``/``clear``, and the ``keys`` helpers that delete widget keys."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else (
            [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else [])
        out += [(node.lineno, ast.unparse(t.slice)) for t in targets
                if isinstance(t, ast.Subscript) and _is_state(t.value)]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            f = node.func
            if _is_state(f.value) and f.attr in ("pop", "setdefault", "update", "clear", "__setitem__"):
                out.append((node.lineno, ast.unparse(node.args[0]) if node.args else "*"))
            if ast.unparse(f) in ("keys.forget", "widgets.reset_widgets", "keys.carry"):
                out.append((node.lineno, f"{ast.unparse(f)}(…)"))
    return out


def test_only_the_session_module_writes_the_scenario_or_its_preset():
    writers = {p.relative_to(ROOT).as_posix(): [k for _, k in state_writes(p) if k in SCENARIO_KEYS] for p in UI}
    assert {p: k for p, k in writers.items() if k} == {"webui/session/state.py": writers["webui/session/state.py"]}
    assert writers["webui/session/state.py"]  # the scan sees the writes that do exist


def test_no_widget_state_is_popped_or_re_synced():
    """Scenario widgets, the preset box and the Assumptions tables are never written: a new
    revision gives them new keys instead (only the refusal message is state of widgets.py)."""
    assert [k for _, k in state_writes(ROOT / "webui" / "inputs" / "widgets.py")] == ["KEY_ERRORS", "KEY_ERRORS"]
    assert not [k for _, k in state_writes(ROOT / "app.py") if "preset" in k]
    for path in UI:
        text = path.read_text(encoding="utf-8")
        assert "reset_widgets" not in text and "keys.forget" not in text, path.name
        assert not [k for _, k in state_writes(path) if "assume_{" in k and "err" not in k], path.name


def test_loading_a_preset_shows_its_values_in_fresh_widgets():
    at = open_page("cluster", cur="USD")
    keyed(at.number_input, "w.cluster.nodes").set_value(77).run()
    assert at.session_state["scenario"].cluster.nodes == 77
    keyed(at.sidebar.selectbox, "sb_preset").set_value("seed-case2-24xA100").run()
    expected = costmodel.load_preset("seed-case2-24xA100")
    assert at.session_state["scenario"] == expected and at.session_state["preset"] == "seed-case2-24xA100"
    nodes = keyed(at.number_input, "w.cluster.nodes")
    assert nodes.value == expected.cluster.nodes and nodes.key == "w.cluster.nodes~1"  # a new revision
    assert keyed(at.sidebar.selectbox, "sb_preset").value == "seed-case2-24xA100"
    assert keyed(at.selectbox, "w.baseline").value == expected.baseline
    assert not at.warning and not at.exception  # no "set via the Session State API" warning


def test_after_a_load_a_language_switch_keeps_the_preset_and_every_choice():
    zh = catalog("zh")
    at = open_page("cluster", cur="USD")
    keyed(at.sidebar.selectbox, "sb_preset").set_value("seed-case3-128xH100").run()
    at.sidebar.segmented_control(key="lang").set_value("zh").run()
    expected = costmodel.load_preset("seed-case3-128xH100")
    assert at.title[0].value == zh["cluster.title"]
    assert keyed(at.sidebar.selectbox, "sb_preset").value == "seed-case3-128xH100"
    assert keyed(at.selectbox, "w.baseline").value == expected.baseline
    assert keyed(at.selectbox, "w.cluster.gpu").value == expected.cluster.gpu
    keyed(at.number_input, "w.cluster.nodes").set_value(96).run()  # the widgets still write the scenario
    assert at.session_state["scenario"].cluster.nodes == 96
    go(at, "compare")
    assert at.session_state["scenario"].cluster.nodes == 96


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_clean_change_keeps_the_revision_and_a_repair_starts_a_new_one(lang):
    at = open_page("cluster", lang=lang, cur="USD")
    keyed(at.number_input, "w.cluster.nodes").set_value(40).run()
    assert keyed(at.number_input, "w.cluster.nodes").key == "w.cluster.nodes"  # the typed widget keeps its key
    base = at.session_state["scenario"].baseline
    keyed(at.multiselect, "w.fabrics").set_value([f for f in at.session_state["scenario"].fabrics if f != base]).run()
    s = at.session_state["scenario"]
    assert s.baseline != base and s.baseline == s.fabrics[0]
    assert keyed(at.selectbox, "w.baseline").value == s.baseline
    assert keyed(at.number_input, "w.cluster.nodes").key == "w.cluster.nodes~1"
