"""The Compare page says short paybacks in days, answers both questions (the cheapest way to do the
work; the best fabric for the nodes entered) and explains why TCP 100G is slower on 64 nodes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from apptest_helpers import open_page

import costmodel
from webui.i18n.durations import duration_text
from webui.i18n.translator import Translator
from webui.session import share

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import compare_screenshots as shots
from switches_2016 import OLD_100G


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compare_answers_in_words(lang):
    t = Translator(lang)
    # the screenshots' 4-fabric scenario on 2016's 100G switches, where TCP is communication-bound
    scenario = share.decode(shots.PRESET, shots.scenario_token(4))
    scenario = costmodel.Scenario.model_validate(scenario.model_dump() | {"overrides": OLD_100G})
    at = open_page("compare", lang=lang, cur="USD", p=shots.PRESET, s=share.encode(scenario, shots.PRESET))
    res = costmodel.evaluate(scenario)
    cards = "\n".join(m.value for m in at.markdown)
    paybacks = [duration_text(t, f.payback_years) for f in res.fabrics if f.payback_years is not None]
    assert paybacks and all(f"{t('kpi.payback')}: **{p}**" in cards for p in paybacks)
    assert all(res.fabrics[j].payback_years * 365.25 < 60 for j in range(1, 3))  # within weeks …
    assert t("kpi.months", n="0.2") not in cards and t("kpi.years", n="0.0") not in cards  # … said in days
    labels_ = {m.label for m in at.metric}
    assert {t("pick.rule"), t("pick.work"), t("pick.fixed", nodes="64")} <= labels_
    (info,) = at.info
    text = info.value.replace("\\", "")  # Markdown-escaped
    assert "TCP" in text and "27.9" in text and "32.7" in text and "26" in text and "64" in text
    assert ("communication-bound" if lang == "en" else "受通信限制") in text
