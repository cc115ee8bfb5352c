"""The workload's precision and recomputation on the Cluster page: the precision control offers the
precisions the GPU has (FP8 on H100, not on A100), a choice reaches the scenario and moves the step
time, in English and Chinese; a GPU without the chosen precision is refused with the field's words."""

from __future__ import annotations

import pytest
from apptest_helpers import go, keyed, open_page

import costmodel
from costmodel.errors import ScenarioError
from costmodel.scenario.changes import with_change
from webui.i18n import labels
from webui.i18n.translator import Translator
from webui.session.state import KEY_SCENARIO


def _options(at, name: str) -> list[str]:
    return list(keyed(at.button_group, name).options)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_precision_control_offers_what_the_gpu_has(lang):
    t = Translator(lang)
    at = open_page("cluster", lang, p="seed-case3-128xH100")
    assert _options(at, "w.workload.precision") == [t("opt.workload.precision.bf16"), t("opt.workload.precision.fp8")]
    assert _options(at, "w.workload.recompute") == [t(f"opt.workload.recompute.{m}")
                                                    for m in ("none", "selective", "full")]
    at = open_page("cluster", lang, p="seed-intro-32xA100")
    assert _options(at, "w.workload.precision") == [t("opt.workload.precision.bf16")]  # the A100 has no FP8


def test_choosing_fp8_reaches_the_model():
    at = open_page("cluster", "en", p="seed-case3-128xH100")
    keyed(at.button_group, "w.workload.precision").set_value("fp8").run()
    keyed(at.button_group, "w.workload.recompute").set_value("full").run()
    assert not at.exception
    go(at, "compare")
    chosen = at.session_state[KEY_SCENARIO]
    assert (chosen.workload.precision, chosen.workload.recompute) == ("fp8", "full")
    base = costmodel.load_preset("seed-case3-128xH100")
    full = with_change(base, "workload.recompute", "full").scenario
    fp8 = costmodel.evaluate(chosen).fabrics[0].metrics["step_time_s"]
    assert fp8 < costmodel.evaluate(full).fabrics[0].metrics["step_time_s"]  # FP8 is faster than BF16


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_gpu_without_the_precision_is_refused_in_words(lang):
    fp8 = with_change(costmodel.load_preset("seed-case3-128xH100"), "workload.precision", "fp8").scenario
    with pytest.raises(ScenarioError) as refused:
        with_change(fp8, "cluster.gpu", "a100-80")
    text = labels.error_text(Translator(lang), refused.value)
    assert "A100" in text and "FP8" in text
    assert ("tensor cores" in text) if lang == "en" else ("张量核心" in text and "tensor" not in text)
