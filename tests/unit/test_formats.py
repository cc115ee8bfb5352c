"""Format versions: files and links made by the code before formats (commit 45aa0b2, format 1) still
open, give the same scenario and results, and no longer depend on the live presets; the migration
path works (a test-only rename); the recomputation check reports changed figures."""

from __future__ import annotations

import json

import pytest
from format_fixtures import (
    MANIFEST,
    as_linked,
    assert_same_results,
    assert_same_scenario,
    figures,
    v1_file,
    without_added_prices,
)

import costmodel
from costmodel import api
from costmodel.errors import ScenarioError
from costmodel.scenario import formats, presets
from costmodel.scenario.price_books import quote_only
from store import documents
from store.errors import ImportRejected
from webui.session import share

EXPORTS = MANIFEST["exports"]
_figures = figures
_v1_file = v1_file


@pytest.fixture
def changed_presets(monkeypatch):
    """Every live preset and the blank scenario changed (as a later issue might): 3 more nodes, a new
    name, the opposite budget answer (a field no fixture edits)."""
    def bump(s: costmodel.Scenario) -> costmodel.Scenario:
        return s.model_copy(update={
            "name": s.name + " (2027 edition)",
            "cluster": s.cluster.model_copy(update={"nodes": s.cluster.nodes + 3}),
            "context": s.context.model_copy(update={"budget_tight": not s.context.budget_tight})})

    live = {p: bump(presets.load_preset(p)) for p in presets.list_presets()}
    blank = bump(costmodel.Scenario())
    monkeypatch.setattr(presets, "load_preset", live.__getitem__)
    monkeypatch.setattr(costmodel, "load_preset", live.__getitem__)
    monkeypatch.setattr(share, "preset_scenario", lambda p: blank if p == share.BLANK else live[p])
    return live


# -- the v1 fixtures ----------------------------------------------------------------------------
def test_the_fixtures_are_format_1_made_by_the_code_before_formats():
    assert MANIFEST["made_by"].startswith("45aa0b2")
    for name in EXPORTS:
        assert formats.KEY not in json.loads(_v1_file(name)), name
        assert "." not in EXPORTS[name]["token"], name  # v1 tokens: no format prefix
    assert len(EXPORTS) == 8 and {"intro-48-nodes", "case3-overrides", "blank-fabrics-book"} <= set(EXPORTS)


def test_the_frozen_format_1_presets_are_what_the_v1_code_exported():
    frozen = formats.bases(1)
    assert set(frozen) <= set(share.preset_ids())  # presets are added, never taken away
    for preset in frozen:
        assert frozen[preset] == json.loads(_v1_file(preset)), preset


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_an_old_exported_file_opens_as_the_same_scenario_with_the_same_results(name):
    scenario, version = documents.read_scenario(_v1_file(name))
    assert version == 1
    assert_same_scenario(scenario.model_dump(mode="json"), json.loads(_v1_file(name)))
    assert_same_results(_figures(scenario), EXPORTS[name]["results"])


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_an_old_share_link_decodes_to_the_same_scenario_with_the_same_results(name):
    case = EXPORTS[name]
    scenario = share.decode(case["preset"], case["token"])
    exported = documents.import_scenario(_v1_file(name))
    linked = as_linked(without_added_prices(quote_only(exported).model_dump(mode="json")))
    assert scenario.model_dump(mode="json") == linked
    assert_same_results(_figures(scenario), case["link_results"])


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_an_old_link_keeps_its_scenario_after_the_presets_change(name, changed_presets):
    case = EXPORTS[name]
    exported = documents.import_scenario(_v1_file(name))
    assert share.preset_scenario(case["preset"]).model_dump(mode="json") != formats.bases(1)[case["preset"]]
    scenario = share.decode(case["preset"], case["token"])
    linked = as_linked(without_added_prices(quote_only(exported).model_dump(mode="json")))
    assert scenario.model_dump(mode="json") == linked
    assert_same_results(_figures(scenario), case["link_results"])


def test_a_new_link_carries_its_format_and_keeps_its_scenario_after_the_presets_change(monkeypatch):
    intro = share.preset_scenario("seed-intro-32xA100")
    edited = intro.model_copy(update={"cluster": intro.cluster.model_copy(update={"nodes": 40})})
    tokens = {"edited": share.encode(edited, "seed-intro-32xA100"),
              "unchanged": share.encode(intro, "seed-intro-32xA100")}
    assert all(t.startswith(f"{formats.CURRENT}.") for t in tokens.values())  # even with nothing changed
    live = {p: presets.load_preset(p) for p in presets.list_presets()}
    live["seed-intro-32xA100"] = intro.model_copy(update={"name": "renamed later",
                                                          "cluster": intro.cluster.model_copy(update={"nodes": 7})})
    monkeypatch.setattr(share, "preset_scenario", live.__getitem__)
    assert share.decode("seed-intro-32xA100", tokens["edited"]) == edited
    assert share.decode("seed-intro-32xA100", tokens["unchanged"]) == intro


def test_a_link_of_a_newer_or_unknown_format_is_refused_with_a_message():
    token = share.encode(costmodel.Scenario(name="x"), share.BLANK)
    body = token.partition(".")[2]
    newer = formats.CURRENT + 1
    with pytest.raises(share.LinkError,
                       match=rf"another version of the planner \(format '{newer}'\).*formats 1 to {formats.CURRENT}"):
        share.decode(share.BLANK, f"{newer}.{body}")
    with pytest.raises(share.LinkError, match="another version of the planner"):
        share.decode(share.BLANK, f"x.{body}")
    with pytest.raises(share.LinkError, match=r"unknown preset 'no-such'; allowed: .*blank, .*seed-case1"):
        share.decode("no-such", token)


# -- the current snapshot is today's presets (else: a new format is needed) --------------------
def test_the_current_formats_frozen_presets_are_the_live_presets():
    """Fails when a preset or a schema default changes without a new format: bump formats.CURRENT,
    register a migration and run ``python -m costmodel.scenario.formats snapshot``
    (see costmodel/scenario/formats.py)."""
    assert formats.bases(formats.CURRENT) == formats.live_bases()
    assert sorted(formats.bases(formats.CURRENT)) == sorted(share.preset_ids())


# -- files of the current format -----------------------------------------------------------------
def test_an_export_carries_the_format_and_reads_back_in_the_app_and_the_cli(tmp_path):
    scenario = documents.import_scenario(_v1_file("case3-overrides"))
    data = documents.export_scenario(scenario)
    assert next(iter(json.loads(data))) == formats.KEY and json.loads(data)[formats.KEY] == formats.CURRENT
    assert documents.read_scenario(data) == (scenario, formats.CURRENT)
    path = tmp_path / "exported.json"
    path.write_bytes(data)
    assert costmodel.load_scenario(path) == scenario  # the CLI reads a marked file
    old = tmp_path / "old.json"
    old.write_bytes(_v1_file("case3-overrides"))
    assert costmodel.load_scenario(old) == scenario


@pytest.mark.parametrize(("value", "message"), [
    (formats.CURRENT + 1, f"format: {formats.CURRENT + 1} was written by a newer version of the planner; "
                          f"this one reads formats 1 to {formats.CURRENT}"),
    (0, f"format: must be a whole number ≥ 1 and ≤ {formats.CURRENT}"),
    ("2", f"format: must be a whole number ≥ 1 and ≤ {formats.CURRENT}"),
    (True, f"format: must be a whole number ≥ 1 and ≤ {formats.CURRENT}"),
    (2.0, f"format: must be a whole number ≥ 1 and ≤ {formats.CURRENT}"),
])
def test_a_file_with_a_bad_format_is_refused_naming_the_field(value, message):
    doc = {formats.KEY: value, **json.loads(_v1_file("blank"))}
    with pytest.raises(ImportRejected) as info:
        documents.import_scenario(json.dumps(doc).encode())
    assert str(info.value) == message


def test_other_unknown_fields_are_still_refused():
    doc = {formats.KEY: formats.CURRENT, **json.loads(_v1_file("blank")), "formats": 2}
    with pytest.raises(ImportRejected, match="formats"):
        documents.import_scenario(json.dumps(doc).encode())


# -- the migration path --------------------------------------------------------------------------
def test_upgrade_removes_the_marker_and_never_changes_its_input():
    doc = {formats.KEY: 2, "name": "x"}
    assert formats.upgrade(doc) == ({"name": "x"}, 2)
    assert formats.upgrade({"name": "x"}) == ({"name": "x"}, 1)
    assert formats.upgrade({"name": "x"}, version=2) == ({"name": "x"}, 2)
    assert doc == {formats.KEY: 2, "name": "x"}
    newer = formats.CURRENT + 1
    with pytest.raises(ScenarioError, match=f"unknown format {newer}"):
        formats.upgrade({}, version=newer)


def _renamed_nodes(doc: dict) -> dict:
    """Test-only step: format 2 called ``cluster.nodes`` ``cluster.servers`` (renamed in format 3)."""
    cluster = dict(doc.get("cluster", {}))
    if "servers" in cluster:
        cluster["nodes"] = cluster.pop("servers")
    return {**doc, "cluster": cluster}


def test_a_renamed_field_is_migrated_through_every_step_in_order():
    calls = []

    def step1(doc: dict) -> dict:
        calls.append(1)
        return formats.MIGRATIONS[1](doc)

    def step2(doc: dict) -> dict:
        calls.append(2)
        return _renamed_nodes(doc)

    old = json.loads(_v1_file("intro-48-nodes"))
    old["cluster"]["servers"] = old["cluster"].pop("nodes")  # as the old format wrote it
    migrated, version = formats.upgrade(old, migrations={1: step1, 2: step2}, current=3)
    assert (version, calls) == (1, [1, 2])
    migrated = formats.MIGRATIONS[3](migrated)  # format 3 → 4 (the layout fields)
    assert costmodel.scenario_from_dict(migrated) == documents.import_scenario(_v1_file("intro-48-nodes"))
    calls.clear()
    assert formats.upgrade({formats.KEY: 2, **old}, migrations={1: step1, 2: step2}, current=3)[1] == 2
    assert calls == [2]  # a format-2 document skips the 1 → 2 step
    with pytest.raises(ScenarioError, match=r"unknown field|servers"):  # without the step: refused
        costmodel.scenario_from_dict(formats.upgrade(old)[0])


# -- the recomputation check ---------------------------------------------------------------------
def test_changes_reports_figures_that_moved_by_more_than_a_tenth_of_a_percent():
    now = api.summarize(documents.import_scenario(_v1_file("seed-case3-128xH100")))
    assert now["model"]["format"] == formats.CURRENT and len(now["model"]["data"]) == 16
    assert formats.changes(now, now) == []
    assert formats.changes(None, now) == []  # saved before summaries: nothing to say
    saved = json.loads(json.dumps(now))
    fid = next(iter(saved["fabrics"]))
    saved["fabrics"][fid]["tco_total"] *= 1.0005  # 0.05 %: within tolerance
    assert formats.changes(saved, now) == []
    saved["fabrics"][fid]["tco_total"] = now["fabrics"][fid]["tco_total"] * 1.01
    saved["fabrics"][fid]["run_days"] = now["fabrics"][fid]["run_days"] * 0.9
    got = formats.changes(saved, now)
    assert [(c.fabric, c.metric) for c in got] == [(fid, "tco_total"), (fid, "run_days")]
    assert got[0].was == saved["fabrics"][fid]["tco_total"] and got[0].now == now["fabrics"][fid]["tco_total"]
    assert formats.changes({**saved, "currency": "EUR"}, now) == []  # not comparable


def test_the_notice_names_the_fabric_and_both_amounts_in_each_language():
    from webui.i18n.money import Money
    from webui.i18n.translator import Translator
    from webui.session.recomputed import lines

    change = [formats.Change("roce-200", "tco_total", 3_174_510.0, 3_300_000.0),
              formats.Change("roce-200", "run_days", 2.156, 2.5)]
    en = lines(Translator("en"), Money("USD", "USD", 1.0, "en"), change)
    assert en == ["Recomputed with the current model: TCO of RoCEv2 200 Gb/s was $3,174,510, now $3,300,000.",
                  "Recomputed with the current model: days per run of RoCEv2 200 Gb/s were 2.16, now 2.50."]
    zh = lines(Translator("zh"), Money("USD", "CNY", 7.0, "zh"), change)
    assert zh[0] == "已按当前模型重新计算：RoCEv2 200 Gb/s 的 TCO 原为 ¥22,221,570，现为 ¥23,100,000。"


# Format 3 lowered four upper bounds (the registry's); a format-2 scenario beyond them still opens.
_BEYOND = {"fabrics": {"roce-400": {"ops_factor": 50.0, "cpu_cores_per_100gbps": 500.0, "switch_power_w": 5e5}},
           "gpu_prices": {"h100": {"rental_per_gpu_hour": 1e5}}}


def _lowered(scenario: costmodel.Scenario) -> None:
    from costmodel.scenario.schema import FABRIC_OVERRIDE_BOUNDS, GPU_PRICE_BOUNDS

    fabric = scenario.overrides.fabrics["roce-400"]
    assert fabric == {k: FABRIC_OVERRIDE_BOUNDS[k][1] for k in fabric}
    assert fabric == {"ops_factor": 10, "cpu_cores_per_100gbps": 100, "switch_power_w": 1e5}  # the registry's
    rental = scenario.overrides.gpu_prices["h100"]["rental_per_gpu_hour"]
    assert rental == GPU_PRICE_BOUNDS["rental_per_gpu_hour"][1] == 1e4


def test_a_format_2_file_beyond_the_new_bounds_opens_lowered_to_them():
    doc = {formats.KEY: 2, **costmodel.load_preset("seed-intro-32xA100").model_dump(mode="json"), "overrides": _BEYOND}
    scenario, version = documents.read_scenario(json.dumps(doc).encode())
    assert version == 2
    _lowered(scenario)
    costmodel.evaluate(scenario)  # and it computes
    with pytest.raises(ImportRejected, match=r"ops_factor.*≤ 10"):  # a current file beyond them is refused
        documents.read_scenario(json.dumps({**doc, formats.KEY: formats.CURRENT}).encode())
    refused = {"fabrics": {"roce-400": {"ops_factor": 101.0}}}  # beyond what format 2 accepted: refused as then
    with pytest.raises(ImportRejected, match=r"ops_factor.*≤ 10"):
        documents.read_scenario(json.dumps({**doc, "overrides": refused}).encode())


def test_a_format_2_link_beyond_the_new_bounds_opens_lowered_to_them():
    base = formats.bases(2)["seed-intro-32xA100"]
    token = "2." + share._pack(share.diff({**base, "overrides": _BEYOND}, base))
    _lowered(share.decode("seed-intro-32xA100", token))


# -- a typed link: a preset and no token ----------------------------------------------------------
@pytest.mark.parametrize("preset", sorted(set(share.preset_ids()) - set(formats.bases(formats.FIRST))))
def test_a_link_naming_only_a_preset_newer_than_format_1_opens_that_preset(preset):
    """``?p=<preset>`` alone (a link typed or sent by hand): a preset format 1 did not have opens as
    the first format that froze it."""
    first = next(v for v in range(formats.FIRST, formats.CURRENT + 1) if preset in formats.bases(v))
    expected = formats.upgrade(formats.bases(first)[preset], version=first)[0]
    assert share.decode(preset, None).model_dump(mode="json") == share.decode(preset, "").model_dump(mode="json")
    assert share.decode(preset, None).model_dump(mode="json") == costmodel.scenario_from_dict(expected).model_dump(
        mode="json")


def test_a_link_naming_an_unknown_preset_lists_todays_presets():
    with pytest.raises(share.LinkError) as err:
        share.decode("no-such", None)
    assert all(p in str(err.value) for p in share.preset_ids())
