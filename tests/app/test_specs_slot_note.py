"""Compare's specifications say when the host PCIe slot, not the port, limits a fabric's NICs: the
NIC cell is marked and a note names the fabrics, the slot and its rate, in English and Chinese."""

from __future__ import annotations

import pytest
from apptest_helpers import open_details, open_page

import costmodel
from webui.i18n.translator import Translator
from webui.panels import specs_panel


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_specs_name_the_fabric_the_host_slot_limits(lang):
    t = Translator(lang)
    at = open_details(open_page("compare", lang, p="seed-case3-128xH100"), "specs", lang)
    assert not at.exception
    captions = [str(c.value) for c in at.caption]
    note = next((c for c in captions if "PCIe 5.0 ×16" in c), None)
    assert note is not None, captions
    assert "XDR" in note and "51.8" in note  # the 800G fabric, the Gen5 x16 slot's ≈ 51.8 GB/s
    assert "TCP" not in note  # 100G ports fit their slot
    table = "\n".join(str(m.value) for m in at.markdown)
    assert specs_panel.SLOT_MARK.strip() in table
    assert t("compare.specs_note") in captions


def test_no_note_where_every_port_fits_its_slot():
    """Case 3 without its 800G fabric: 100G and 400G ports fit an H100 server's Gen5 x16 slots."""
    data = costmodel.load_preset("seed-case3-128xH100").model_dump(mode="json")
    data["fabrics"] = ["tcp-100", "roce-400"]
    scenario = costmodel.scenario_from_dict(data)
    res = costmodel.evaluate(scenario)
    names = {f.id: f.name for f in res.fabrics}
    assert specs_panel.slot_note(Translator("en"), scenario, res, names) == ""
    assert not any(specs_panel.SLOT_MARK in row[1] for row in specs_panel.rows(res, names))
    with_800g = costmodel.scenario_from_dict({**data, "fabrics": ["tcp-100", "ib-xdr-800"]})
    res = costmodel.evaluate(with_800g)
    names = {f.id: f.name for f in res.fabrics}
    assert "PCIe 5.0 ×16" in specs_panel.slot_note(Translator("en"), with_800g, res, names)
