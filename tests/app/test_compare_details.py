"""Compare's details tabs: only the open tab's panel runs; each panel opens from its tab; the open
tab survives a language switch (the tabs are keyed by their labels, the choice by its panel id)."""

from __future__ import annotations

import pytest
from apptest_helpers import open_details, open_page

from webui.i18n.translator import Translator
from webui.panels import details

OTHER_TITLES = {"bom": "bom.title", "rent": "rent.title", "fincarbon": "fincarbon.title",
                "specs": "compare.specs", "reliability": "reliability.title"}


def _headings(at) -> list[str]:
    return [str(h.value) for h in at.subheader]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_bill_of_materials_opens_first_and_only_it_runs(lang):
    t = Translator(lang)
    at = open_page("compare", lang)
    assert [tab.label for tab in at.get("tab")] == [t(k) for k in details.PANELS.values()]
    shown = [p for p, key in OTHER_TITLES.items() if t(key) in _headings(at)]
    assert shown == ["bom"]


@pytest.mark.parametrize("panel", list(details.PANELS))
def test_each_panel_opens_from_its_tab_and_alone(panel):
    t = Translator("en")
    at = open_details(open_page("compare", "en", p="seed-case2-24xA100"), panel)
    shown = [p for p, key in OTHER_TITLES.items() if t(key) in _headings(at)]
    assert shown == [panel]


def test_the_open_tab_survives_a_language_switch():
    at = open_details(open_page("compare", "en"), "reliability")
    at.button_group(key="lang").set_value("zh").run()  # the sidebar's language control
    assert not at.exception
    zh = Translator("zh")
    assert zh("reliability.title") in _headings(at) and zh("bom.title") not in _headings(at)
    assert at.session_state[details.OPEN] == "reliability"
    at.button_group(key="lang").set_value("en").run()
    assert Translator("en")("reliability.title") in _headings(at)
