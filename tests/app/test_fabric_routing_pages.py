"""The Spectrum-X-class fabrics and the in-network reduction toggle on the pages, in both languages."""

from __future__ import annotations

import pytest
from apptest_helpers import keyed, open_page
from test_chinese import _page_texts
from zh_words import latin_words

import costmodel
from costmodel.catalog.loader import load_catalog
from webui.session import share

CAT = load_catalog()
FABRICS = ["roce-400", "roce-ar-400", "roce-ar-800", "ib-ndr-400"]


def _token(sharp: bool) -> str:
    scenario = costmodel.scenario_from_dict({
        "name": "routing", "cluster": {"nodes": 256, "gpu": "h100", "in_network_reduction": sharp},
        "fabrics": FABRICS, "baseline": "roce-400"})
    return share.encode(scenario, "seed-intro-32xA100")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_assumptions_list_the_new_fabrics_and_their_routing_figures(lang):
    at = open_page("assumptions", lang, p="seed-intro-32xA100", s=_token(True))
    table = at.dataframe[0].value
    names = {CAT.fabrics[f].name_zh if lang == "zh" else CAT.fabrics[f].name for f in FABRICS}
    assert names <= set(table.iloc[:, 0])
    shown = set(table.iloc[:, 1])
    assert {"spine_efficiency", "sharp_speedup"}.isdisjoint(shown)  # labelled, not ids
    assert len(table) == len(FABRICS) * len({*table.iloc[:, 1]})
    if lang == "zh":
        stray = {w for texts in _page_texts(at).values() for t in texts for w in latin_words(t)}
        assert not stray, stray


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_cluster_page_turns_in_network_reduction_on_and_compare_shows_the_new_fabrics(lang):
    at = open_page("cluster", lang, p="seed-intro-32xA100", s=_token(False))
    toggle = keyed(at.toggle, "w.cluster.in_network_reduction")
    assert toggle.value is False
    toggle.set_value(True).run()
    assert not at.exception
    assert at.session_state["scenario"].cluster.in_network_reduction is True
    if lang == "zh":
        assert not latin_words(toggle.label) and not latin_words(toggle.help or "")
    at.switch_page("app_pages/compare.py")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
