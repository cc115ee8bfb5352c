"""The Cluster page's GPU list offers the 2026 parts (H800, H20, B300, MI300X, MI355X, the NVL72 racks, MI325X,
Ascend 910B and 910C) by their names in each language, and choosing one shows no error; an Ascend part is
offered only the fabrics its server can carry."""

from __future__ import annotations

import pytest
from apptest_helpers import keyed, open_page
from zh_words import latin_words

from costmodel.catalog.loader import load_catalog

NEW = ["h800", "h20", "b300", "mi300x", "mi355x", "gb200-nvl72", "gb300-nvl72", "mi325x", "ascend-910b", "ascend-910c"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_gpu_list_offers_the_2026_parts(lang):
    at = open_page("cluster", lang)
    box = keyed(at.selectbox, "w.cluster.gpu")
    gpus = load_catalog().gpus
    names = [gpus[g].name_zh if lang == "zh" and gpus[g].name_zh else gpus[g].name for g in NEW]
    assert names == box.options[-len(NEW):]
    assert not latin_words(" ".join(names))  # the names a Chinese page shows are allowed product words
    box.set_value("mi355x").run()
    assert not at.error, [e.value for e in at.error]
    assert keyed(at.selectbox, "w.cluster.gpu").value == "mi355x"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_ascend_part_is_offered_only_the_fabrics_its_server_carries(lang):
    at = open_page("cluster", lang)
    keyed(at.selectbox, "w.cluster.gpu").set_value("ascend-910b").run()
    assert not at.error, [e.value for e in at.error]
    cat = load_catalog()
    carried = cat.gpus["ascend-910b"].fabrics
    box = keyed(at.multiselect, "w.fabrics")
    assert box.value and set(box.value) <= set(carried)  # the IB of the default scenario was dropped
    assert len(box.options) == len(carried) < len(cat.fabrics)
    assert not any(cat.fabrics[f].family == "infiniband" for f in carried)
