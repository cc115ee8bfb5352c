"""The title follows the cluster on the pages: the Cluster page's name field, Compare's caption and
the Report page's files, as a user changes GPU and nodes, names the scenario and clears the name."""

from __future__ import annotations

from apptest_helpers import go, keyed, open_page

from webui.i18n.translator import catalog

PRESET = "seed-intro-32xA100"


def _set_h100_64(at):
    keyed(at.selectbox, "w.cluster.gpu").set_value("h100").run()
    keyed(at.number_input, "w.cluster.nodes").set_value(64).run()
    assert not at.exception, [e.message for e in at.exception]


def test_a_changed_preset_is_titled_by_what_it_is_and_a_users_name_stays():
    zh = catalog("zh")
    at = open_page("cluster", lang="zh")  # the default preset, as a new user sees it
    assert keyed(at.text_input, "w.name").value == zh[f"preset.{PRESET}"]
    _set_h100_64(at)
    assert keyed(at.text_input, "w.name").value == "64 × H100 · 500 亿参数 · 训练"
    go(at, "compare")
    assert "64 × H100 · 500 亿参数 · 训练" in at.caption[0].value and "已修改" not in at.caption[0].value
    go(at, "report")
    intro = " ".join(c.value for c in at.caption)
    assert "64 × H100 · 500 亿参数 · 训练" in intro and "已修改" not in intro and "文章引言" not in intro
    go(at, "cluster")
    keyed(at.text_input, "w.name").set_value("华东客户试点").run()
    keyed(at.number_input, "w.cluster.nodes").set_value(128).run()
    assert keyed(at.text_input, "w.name").value == "华东客户试点"
    go(at, "report")
    assert "华东客户试点" in " ".join(c.value for c in at.caption)


def test_clearing_the_name_falls_back_to_the_made_name():
    zh = catalog("zh")
    at = open_page("cluster", lang="zh")  # the default preset, as a new user sees it
    keyed(at.text_input, "w.name").set_value("").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    box = keyed(at.text_input, "w.name")
    assert box.value in ("", "32 × A100 80 GB · 500 亿参数 · 训练")
    assert box.placeholder == "32 × A100 80 GB · 500 亿参数 · 训练"
    go(at, "compare")
    caption = at.caption[0].value
    assert "32 × A100 80 GB · 500 亿参数 · 训练" in caption and zh[f"preset.{PRESET}"] not in caption
