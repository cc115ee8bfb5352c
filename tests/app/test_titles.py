"""The scenario's display title: a preset's name in the page's language, marked once changed."""

from __future__ import annotations

import costmodel
from webui import share
from webui.i18n import Translator
from webui.titles import file_stem, scenario_title

PRESET = "seed-intro-32xA100"


def test_unchanged_preset_is_named_in_the_page_language():
    s = costmodel.load_preset(PRESET)
    assert scenario_title(s, PRESET, Translator("zh")) == Translator("zh")(f"preset.{PRESET}")
    assert scenario_title(s, PRESET, Translator("en")) == Translator("en")(f"preset.{PRESET}")


def test_changed_preset_says_modified():
    s = costmodel.load_preset(PRESET)
    changed = s.model_copy(update={"cluster": s.cluster.model_copy(update={"nodes": 256})})
    en = scenario_title(changed, PRESET, Translator("en"))
    assert en.endswith("(modified)") and "Article intro" in en
    assert scenario_title(changed, PRESET, Translator("zh")).endswith("（已修改）")


def test_own_name_is_kept_and_blank_is_untitled():
    s = costmodel.load_preset(PRESET).model_copy(update={"name": "Acme pilot"})
    assert scenario_title(s, PRESET, Translator("zh")) == "Acme pilot"  # a new name alone changes no input
    bigger = s.model_copy(update={"cluster": s.cluster.model_copy(update={"nodes": 64})})
    assert scenario_title(bigger, PRESET, Translator("zh")) == "Acme pilot（已修改）"
    assert scenario_title(costmodel.Scenario(), share.BLANK, Translator("zh")) == "未命名方案"
    assert scenario_title(s, share.BLANK, Translator("en")) == "Acme pilot"


def test_file_stem_keeps_chinese_and_drops_punctuation():
    assert file_stem("案例 2（自动驾驶）：24 节点") == "案例-2-自动驾驶-24-节点"
    assert file_stem("../../etc/passwd") == "etc-passwd"
    assert file_stem("***") == "scenario"
