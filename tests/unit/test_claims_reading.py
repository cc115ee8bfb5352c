"""The article's case 3 under two readings: its own (800 Gb/s as one NIC per H100 server) and the
reference design (8 NICs, one per GPU). The claims check computes both, and the verdict says the
article's run-length ratio holds only under the one-NIC reading."""

from __future__ import annotations

import pytest

import costmodel
from costmodel.evidence.claims import WHY_EN, check_all, check_preset
from costmodel.scenario.presets import get_preset, list_presets
from webui.i18n import labels
from webui.i18n.translator import Translator

CASE3 = "seed-case3-128xH100"


def _ratio(scenario, fabric: str) -> float:
    res = costmodel.evaluate(scenario)
    return res.fabric(res.baseline).metrics["run_days"] / res.fabric(fabric).metrics["run_days"]


def _run_days_check():
    return next(c for c in check_preset(CASE3) if c.metric == "run_days_ratio")


def test_both_readings_are_computed_from_their_own_scenarios():
    preset = get_preset(CASE3)
    assert preset.scenario.cluster.nics_per_node == 1  # the article's reading is kept as its case
    assert preset.reference.nics_per_node == 8
    c = _run_days_check()
    assert c.modelled == pytest.approx(_ratio(preset.scenario, c.fabric), rel=1e-12)
    cluster = preset.scenario.cluster.model_copy(update={"nics_per_node": 8})
    reference = preset.scenario.model_copy(update={"cluster": cluster})
    assert c.reference == pytest.approx(_ratio(reference, c.fabric), rel=1e-12)
    # eight NICs per server shorten the TCP baseline's run far more than the 800G fabric's
    assert c.reference < c.modelled


def test_the_ratio_holds_only_under_the_one_nic_reading_and_the_verdict_says_so():
    c = _run_days_check()
    assert c.reproduced and not c.reference_reproduced
    part = c.why[-1]
    assert part["code"] == "reading_only"
    assert part["values"]["nics"] == 1 and part["values"]["ref_nics"] == 8
    assert "holds only under the article's reading" in c.explanation and "1 NIC per server" in c.explanation
    zh = labels.claim_why(Translator("zh"), c.why)
    assert "只在文章把带宽理解为每台服务器 1 块网卡时成立" in zh
    # the cost-optimal fabric of the reference design is named, by its display name
    best = costmodel.evaluate(get_preset(CASE3).scenario.model_copy(update={"cluster": get_preset(
        CASE3).scenario.cluster.model_copy(update={"nics_per_node": 8})})).recommendation.cost_optimal
    assert part["values"]["fabric"] == best
    assert labels.fabric_names(Translator("en"))[best] in labels.claim_why(Translator("en"), c.why)


def test_every_claim_of_the_case_carries_the_reference_figure_and_other_presets_none():
    for c in check_all():
        if c.preset == CASE3:
            assert c.reference is not None and c.reference_text and c.reference_text_zh
            assert c.why[-1]["code"] in ("reading_only", "reading_ref")
            assert (c.why[-1]["code"] == "reading_only") == (c.reproduced and not c.reference_reproduced)
        else:
            assert c.reference is None and c.reference_reproduced is None
            assert not any(p["code"].startswith("reading") for p in c.why)
    assert any(get_preset(p).reference is not None for p in list_presets())
    assert {"reading_only", "reading_ref"} <= set(WHY_EN)
