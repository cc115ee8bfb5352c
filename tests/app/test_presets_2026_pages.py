"""Each 2026 preset opens on every page, in English and in Chinese, without an error or an exception,
and its Chinese pages show no stray English (the rack-scale and China-market presets, costmodel/data/presets)."""

from __future__ import annotations

import pytest
from apptest_helpers import go, keyed, open_page
from zh_words import latin_words

import costmodel
from webui.session import share

PRESETS = ["gb200-nvl72-8racks", "gb300-nvl72-8racks", "b300-128", "mi355x-64", "h20-64", "ascend910b-128",
           "cloudmatrix384-2"]
PAGES = ["cluster", "compare", "scale", "risk", "assumptions", "method", "report", "scenarios"]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("preset", PRESETS)
def test_the_preset_opens_on_every_page(preset, lang):
    # as a link from the blank scenario (a preset's own ?p= link needs it in the frozen format's presets)
    scenario = costmodel.load_preset(preset)
    at = open_page(PAGES[0], lang, p="blank", s=share.encode(scenario, "blank"))
    assert keyed(at.selectbox, "w.cluster.gpu").value == scenario.cluster.gpu  # the preset, not a fallback
    for page in PAGES:
        at = go(at, page)
        assert not at.error, (page, [e.value for e in at.error])
        if lang == "zh" and page in ("cluster", "compare"):
            shown = " ".join(str(m.value) for m in [*at.markdown, *at.caption, *at.title, *at.subheader])
            shown = shown.replace("\\", "")  # markdown escapes (MMA4Z00\-NS) are not shown
            assert not latin_words(shown), (page, sorted(latin_words(shown)))
