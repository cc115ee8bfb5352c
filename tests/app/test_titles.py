"""The scenario's title: a preset's name while it is that preset, a name made from what it is once
changed (zh and en), the user's own name kept, a cleared name falling back to the made name."""

from __future__ import annotations

import costmodel
from costmodel.scenario import titles as model_titles
from costmodel.scenario.changes import with_change
from webui.i18n.translator import Translator
from webui.session import share
from webui.session.titles import file_stem, scenario_title

PRESET = "seed-intro-32xA100"
ZH, EN = Translator("zh"), Translator("en")


def _h100_64(s: costmodel.Scenario) -> costmodel.Scenario:
    s = with_change(s, "cluster.gpu", "h100").scenario
    return with_change(with_change(s, "cluster.nodes", 64).scenario, "cluster.gpus_per_node", 8).scenario


def test_unchanged_preset_is_named_in_the_page_language():
    s = costmodel.load_preset(PRESET)
    assert scenario_title(s, PRESET, ZH) == ZH(f"preset.{PRESET}")
    assert scenario_title(s, PRESET, EN) == EN(f"preset.{PRESET}")


def test_changed_preset_gets_the_made_name_in_zh_and_en():
    changed = _h100_64(costmodel.load_preset(PRESET))
    assert scenario_title(changed, PRESET, ZH) == "64 × H100 · 500 亿参数 · 训练"
    assert scenario_title(changed, PRESET, EN) == "64 × H100 · 50 B parameters · training"
    for t in (ZH, EN):
        title = scenario_title(changed, PRESET, t)
        assert "修改" not in title and "modified" not in title and "32" not in title


def test_own_name_is_kept_through_changes_without_a_modified_mark():
    s = with_change(costmodel.load_preset(PRESET), "name", "Acme pilot").scenario
    assert scenario_title(s, PRESET, ZH) == "Acme pilot"
    bigger = _h100_64(s)
    assert scenario_title(bigger, PRESET, ZH) == "Acme pilot" == scenario_title(bigger, PRESET, EN)


def test_a_cleared_name_falls_back_to_the_made_name_not_the_presets():
    s = costmodel.load_preset(PRESET)
    for blank in ("", "   "):
        cleared = with_change(s, "name", blank).scenario  # the inputs are still the preset's
        assert cleared.name == costmodel.Scenario().name
        assert scenario_title(cleared, PRESET, ZH) == "32 × A100 80 GB · 500 亿参数 · 训练"
        assert ZH(f"preset.{PRESET}") != scenario_title(cleared, PRESET, ZH)
    named = with_change(with_change(_h100_64(s), "name", "Acme").scenario, "name", "").scenario
    assert scenario_title(named, PRESET, EN) == "64 × H100 · 50 B parameters · training"


def test_a_saved_made_name_is_made_again_once_the_scenario_changes():
    """A scenario saved under its made name and changed later is titled afresh (a stale made name never stays)."""
    saved = _h100_64(costmodel.load_preset(PRESET))
    saved = with_change(saved, "name", scenario_title(saved, PRESET, ZH)).scenario
    assert scenario_title(saved, share.BLANK, ZH) == "64 × H100 · 500 亿参数 · 训练"
    later = with_change(saved, "cluster.nodes", 128).scenario
    assert scenario_title(later, share.BLANK, EN) == "128 × H100 · 50 B parameters · training"


def test_blank_scenario_is_titled_by_what_it_is():
    s = costmodel.Scenario()
    assert scenario_title(s, share.BLANK, ZH) == model_titles.made_name(s, "zh")
    assert model_titles.made_name(s, "zh").endswith("· 训练")


def test_model_sizes_in_words():
    assert [model_titles.model_size(b, "zh") for b in (0.05, 1.5, 50, 175, 1000)] == [
        "5000 万参数", "15 亿参数", "500 亿参数", "1750 亿参数", "1 万亿参数"]
    assert [model_titles.model_size(b, "en") for b in (0.35, 7, 1750)] == [
        "350 M parameters", "7 B parameters", "1.75 T parameters"]


def test_file_stem_keeps_chinese_and_drops_punctuation():
    assert file_stem("案例 2（自动驾驶）：24 节点") == "案例-2-自动驾驶-24-节点"
    assert file_stem("64 × H100 · 500 亿参数 · 训练") == "64-H100-500-亿参数-训练"
    assert file_stem("../../etc/passwd") == "etc-passwd"
    assert file_stem("***") == "scenario"


def test_a_preset_in_its_chinese_start_keeps_the_preset_title():
    from costmodel.scenario import locale_defaults

    china = locale_defaults.localize(costmodel.load_preset(PRESET), "zh")
    assert china != costmodel.load_preset(PRESET)  # China's book, grid, tax and power price
    assert scenario_title(china, PRESET, ZH) == ZH(f"preset.{PRESET}")
    changed = _h100_64(china)
    assert scenario_title(changed, PRESET, ZH) == "64 × H100 · 500 亿参数 · 训练"
