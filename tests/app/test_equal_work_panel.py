"""Compare leads with the same work: the table of nodes needed and cost per fabric."""

from __future__ import annotations

import pytest
from apptest_helpers import open_page

import costmodel
from webui.i18n.translator import Translator
from webui.session import state as session

PRESET = "seed-intro-32xA100"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compare_leads_with_the_equal_work_table(lang):
    at = open_page("compare", lang, p=PRESET)
    assert not at.exception
    t = Translator(lang)
    subheaders = [s.value for s in at.subheader]
    assert subheaders[0] == t("work.title")  # the headline comes first, the fixed cluster after it
    assert any(s.startswith(t("compare.fixed_title", nodes="32")[:6]) for s in subheaders[1:])
    ew = costmodel.evaluate(at.session_state[session.KEY_SCENARIO]).equal_work
    table = next(m.value for m in at.markdown if m.value.startswith("| " + t("work.fabric")))
    lines = table.splitlines()[2:]
    assert len(lines) == len(ew.fabric_ids)
    for j, line in enumerate(lines):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[1] == f"{int(ew.nodes[j]):,}"
        assert ("★" in cells[0]) == (j == ew.cheapest)
