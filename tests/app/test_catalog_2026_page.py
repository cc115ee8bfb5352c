"""The Cluster page's GPU list offers the 2026 parts (H800, H20, B300, MI300X, MI355X) by their
catalog names in both languages, and choosing one shows no error."""

from __future__ import annotations

import pytest
from apptest_helpers import keyed, open_page
from zh_words import latin_words

from costmodel.catalog.loader import load_catalog

NEW = ["h800", "h20", "b300", "mi300x", "mi355x"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_gpu_list_offers_the_2026_parts(lang):
    at = open_page("cluster", lang)
    box = keyed(at.selectbox, "w.cluster.gpu")
    names = [load_catalog().gpus[g].name for g in NEW]
    assert names == box.options[-len(NEW):]
    assert not latin_words(" ".join(names))  # the names a Chinese page shows are allowed product words
    box.set_value("mi355x").run()
    assert not at.error, [e.value for e in at.error]
    assert keyed(at.selectbox, "w.cluster.gpu").value == "mi355x"
