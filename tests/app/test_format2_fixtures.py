"""Format-2 files and links made by the previous main's own code (commit 02267f6, see
tests/data/formats/v2/manifest.json) still open after format 3: same figures, except the one
scenario whose overrides format 3's registry bounds lower, which opens lowered and recomputed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from apptest_helpers import open_page
from format_fixtures import assert_same_results, figures

import costmodel
from costmodel.scenario import formats
from costmodel.scenario.schema import FABRIC_OVERRIDE_BOUNDS, GPU_PRICE_BOUNDS
from store import documents
from webui.i18n.money import Money, default_rate
from webui.i18n.translator import catalog
from webui.session import share

V2 = Path(__file__).resolve().parents[1] / "data" / "formats" / "v2"
MANIFEST = json.loads((V2 / "manifest.json").read_text(encoding="utf-8"))
LOWERED = "intro-beyond-v3-bounds"
SAME = [name for name in MANIFEST["exports"] if name != LOWERED]


def _file(name: str) -> bytes:
    return (V2 / MANIFEST["exports"][name]["file"]).read_bytes()


@pytest.mark.parametrize("name", list(MANIFEST["exports"]))
def test_a_format_2_file_and_link_open(name):
    case = MANIFEST["exports"][name]
    assert json.loads(_file(name))[formats.KEY] == 2
    scenario, version = documents.read_scenario(_file(name))
    assert version == 2
    if case["token"]:
        assert case["token"].startswith("2.")
        assert share.decode(case["preset"], case["token"]) == scenario  # the link and the file agree
    if name != LOWERED:
        assert_same_results(figures(scenario), case["results"])


def test_the_format_2_scenario_beyond_the_new_bounds_opens_lowered_and_recomputed():
    scenario, _ = documents.read_scenario(_file(LOWERED))
    fabric = scenario.overrides.fabrics["roce-200"]
    assert fabric == {k: FABRIC_OVERRIDE_BOUNDS[k][1] for k in fabric}
    assert scenario.overrides.gpu_prices["a100-80"]["rental_per_gpu_hour"] == GPU_PRICE_BOUNDS["rental_per_gpu_hour"][1]
    # recomputed with today's model (format 4 changed every figure): the lowered rental prices lost
    # hours lower than the format-2 value did, and leaves the speed alone
    now = figures(scenario)
    higher = scenario.model_copy(update={"overrides": scenario.overrides.model_copy(update={"gpu_prices": {}})})
    assert costmodel.evaluate(higher).fabrics[0].metrics["value_of_cluster_hour"] != (
        costmodel.evaluate(scenario).fabrics[0].metrics["value_of_cluster_hour"])
    other = figures(higher)
    for fid in now["fabrics"]:
        assert now["fabrics"][fid]["run_days"] == pytest.approx(other["fabrics"][fid]["run_days"], rel=1e-12), fid


@pytest.mark.parametrize("name", ["intro-48-nodes", "case3-overrides", LOWERED])
def test_a_format_2_link_opens_on_compare_with_its_tco(name):
    case = MANIFEST["exports"][name]
    at = open_page("compare", p=case["preset"], s=case["token"], cur="USD")
    assert not at.error and not at.sidebar.warning
    prefix = catalog("en")["kpi.tco"].split("{")[0]
    shown = [m.value for m in at.metric if m.label.startswith(prefix)]
    results = figures(at.session_state["scenario"])
    money = Money(results["currency"], "USD", default_rate(results["currency"], "USD"))
    assert shown == [money.short(f["tco_total"]) for f in results["fabrics"].values()]
    if name != LOWERED:
        assert_same_results(results, case["results"])
    now = at.query_params["s"]
    assert (now[0] if isinstance(now, list) else now).startswith(f"{formats.CURRENT}.")
