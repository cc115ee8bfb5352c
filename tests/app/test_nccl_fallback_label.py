"""Compare says when a fabric's figures are NCCL's socket fallback (iWARP), in both languages."""

from __future__ import annotations

from apptest_helpers import open_page

from costmodel.catalog.loader import load_catalog
from webui.i18n.translator import catalog


def _captions(at) -> list[str]:
    return [c.value for c in at.caption]


def test_only_socket_fallback_fabrics_carry_the_label():
    cat = load_catalog()
    assert {f for f, spec in cat.fabrics.items() if spec.socket_fallback} == {"iwarp-100"}


def test_compare_labels_iwarp_as_nccl_over_sockets_in_english_and_chinese():
    for lang in ("en", "zh"):
        at = open_page("compare", p="seed-intro-32xA100", cur="USD", lang=lang)
        assert not at.exception
        label = catalog(lang)["compare.nccl_sockets"]
        assert _captions(at).count(label) == 1  # the intro preset compares one iWARP fabric


def test_an_override_of_the_efficiency_removes_the_label():
    at = open_page("assumptions", p="seed-intro-32xA100", cur="USD")
    scenario = at.session_state["scenario"]
    row = scenario.fabrics.index("iwarp-100") * len(_fabric_fields()) + _fabric_fields().index("efficiency")
    at.session_state["assume_fabrics"] = {"edited_rows": {row: {"value": 0.9}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert at.session_state["scenario"].overrides.fabrics["iwarp-100"]["efficiency"] == 0.9
    at.switch_page("app_pages/compare.py").run()
    assert catalog("en")["compare.nccl_sockets"] not in _captions(at)


def _fabric_fields() -> list[str]:
    from costmodel.scenario.schema import FABRIC_OVERRIDE_BOUNDS

    return list(FABRIC_OVERRIDE_BOUNDS)
