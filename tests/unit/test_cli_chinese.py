"""The report command line answers in the report's language: under ``--lang zh`` every refusal is
Chinese (the field or option and what is allowed), under ``--lang en`` the model's English line."""

from __future__ import annotations

import pytest
from zh_words import latin_words

from webui import cli

PRESET = "seed-intro-32xA100"
#: The words of the model's English refusals (none of them is a file name, an option or an id here).
ENGLISH = {"error", "give", "either", "both", "unknown", "allowed", "cannot", "write", "read", "regular", "file",
           "not", "output", "got", "least", "one", "to", "or", "a"}


@pytest.mark.parametrize(("argv", "expect"), [
    (["--preset", PRESET], "请至少给出一个输出"),
    (["--preset", "nope", "--csv", "x.csv"], "预设 'nope' 不存在"),
    (["missing.json", "--csv", "x.csv"], "不是普通文件"),
    (["--csv", "x.csv"], "请给出方案文件（JSON）或 --preset 预设 ID"),
    (["--preset", PRESET, "--csv", "{tmp}/missing/x.csv"], "无法写入"),
    (["--preset", PRESET, "--currency", "CNY", "--fx", "1e9", "--csv", "x.csv"], "允许范围为"),
])
def test_refusals_under_lang_zh_are_chinese(argv, expect, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert cli.main(["report", "--lang", "zh", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("错误：") and expect in err, err
    words = {w.lower() for w in latin_words(err)}
    assert not words & ENGLISH, words & ENGLISH


def test_refusals_under_lang_en_stay_the_models_english(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["report", "--lang", "en", "--preset", "nope", "--csv", "x.csv"]) == 2
    assert capsys.readouterr().err.startswith("error: preset: unknown preset 'nope'; allowed: ")
