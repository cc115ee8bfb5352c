"""Compare shows the priced bill of materials of the chosen fabric: its total is the fabric's network
capex as the page formats money; the Chinese page carries no stray English; the Cluster page's
switch-reuse toggle takes the switches off the bill of an Ethernet fabric."""

from __future__ import annotations

import pytest
from apptest_helpers import go, keyed, open_page
from zh_words import latin_words

import costmodel

PRESET = "seed-intro-32xA100"
TITLE = {"en": "Bill of materials", "zh": "物料清单"}
TOTAL = {"en": "Network capex", "zh": "网络投资"}


def _bill(at, lang: str) -> str:
    tables = [str(m.value) for m in at.markdown if f"**{TOTAL[lang]}**" in str(m.value)]
    assert len(tables) == 1, tables
    return tables[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_compare_shows_the_bill_of_each_fabric_adding_up_to_its_network_capex(lang):
    at = open_page("compare", lang, p=PRESET, cur="USD")  # amounts in the model's currency
    assert TITLE[lang] in [str(s.value) for s in at.subheader]
    res = costmodel.evaluate(costmodel.load_preset(PRESET))
    box = [s for s in at.selectbox if (s.key or "").startswith("compare_bom_fabric")]
    assert len(box) == 1
    for f in res.fabrics:
        box[0].set_value(f.id).run()
        table = _bill(at, lang)
        total_row = table.splitlines()[-1]
        digits = "".join(ch for ch in total_row if ch.isdigit())
        assert digits == f"{round(f.network_capex_purchase):d}"[:len(digits)] and len(digits) >= 3, (f.id, total_row)
        if lang == "zh":
            assert not latin_words(table.replace("\\", "")), latin_words(table)


def test_reusing_the_switches_on_the_cluster_page_takes_them_off_the_bill():
    at = open_page("cluster", "en", p="seed-case2-24xA100")
    keyed(at.toggle, "w.cluster.reuse_existing_switches").set_value(True).run()
    assert not at.exception
    go(at, "compare")
    box = next(s for s in at.selectbox if (s.key or "").startswith("compare_bom_fabric"))
    box.set_value("tcp-100").run()
    assert "Existing switches reused" in _bill(at, "en")
    box.set_value("ib-ndr-400").run()
    assert "Existing switches reused" not in _bill(at, "en")
