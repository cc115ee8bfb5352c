"""A store written by the previous release (commit a72e2d8, format 3; tests/data/formats/v3/store.sql):
its versions, price book and read-only token open as the same scenarios in today's code, with
``micro_batch_seqs`` in place of ``pipeline_microbatches``, keep the results summary they were saved
with, and say which figures today's model recomputed differently."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa
from format_fixtures import MANIFEST_V3, V3, assert_same_results, assert_same_scenario, figures, restore_store, v3_file

import costmodel
from costmodel.scenario import formats
from store import documents
from store.repository import open_store
from store.tables import scenario_versions

MADE = MANIFEST_V3["store"]
OWNER = MADE["owner"]


@pytest.fixture
def v3_store(tmp_path):
    """A copy of the format-3 store file, opened (and so migrated) with today's code."""
    db = open_store(f"sqlite:///{restore_store(V3, tmp_path / 'store.db')}")
    yield db
    db.engine.dispose()


def _stored(db, sid: str, version: int) -> tuple[dict, dict]:
    """(the document as format 3 wrote it, its results summary) straight from the table."""
    with db.engine.connect() as conn:
        row = conn.execute(sa.select(scenario_versions.c.document, scenario_versions.c.summary).where(
            scenario_versions.c.scenario_id == sid, scenario_versions.c.version == version)).one()
    return json.loads(row.document), json.loads(row.summary)


def _expected_changes(summary: dict, scenario: costmodel.Scenario) -> list[tuple[str, str]]:
    """(fabric, metric) whose recomputed value differs from the saved one by more than 0.1 %, TCO first."""
    now = figures(scenario)["fabrics"]
    out = []
    for metric in ("tco_total", "run_days"):
        for fid, figs in now.items():
            was = summary["fabrics"][fid][metric]
            if abs(figs[metric] - was) > formats.SUMMARY_TOLERANCE * max(abs(was), abs(figs[metric])):
                out.append((fid, metric))
    return out


@pytest.mark.parametrize("index", range(len(MADE["versions"])))
def test_a_format_3_version_opens_as_the_same_scenario_and_says_what_was_recomputed(v3_store, index):
    made = MADE["versions"][index]
    info = v3_store.load(OWNER, made["scenario_id"], made["version"])
    saved, summary = _stored(v3_store, made["scenario_id"], made["version"])
    assert (info.format, info.sha256, info.summary) == (3, made["sha256"], summary)
    assert summary["model"]["format"] == 3
    assert_same_results({k: summary[k] for k in ("currency", "horizon_years", "fabrics")}, made["results"])
    assert formats.KEY not in saved and "pipeline_microbatches" in saved["workload"]
    scenario = info.scenario()
    assert_same_scenario(scenario.model_dump(mode="json"), saved)
    if made["case"]:  # the same scenario as the exported file of that case
        assert scenario == documents.read_scenario(v3_file(made["case"]))[0]
    changes = [(c.fabric, c.metric) for c in info.recomputed()]
    assert changes == _expected_changes(summary, scenario) and changes  # format 4 moved the run lengths
    for c in info.recomputed():
        assert c.was == summary["fabrics"][c.fabric][c.metric]
        assert c.now == pytest.approx(figures(scenario)["fabrics"][c.fabric][c.metric], rel=1e-12)


def test_format_3_versions_are_listed_with_their_format_and_the_price_book_opens(v3_store):
    listed = v3_store.versions(OWNER, MADE["versions"][0]["scenario_id"])
    assert [(v.version, v.format) for v in listed] == [(2, 3), (1, 3)]
    book = v3_store.load_price_book(OWNER, MADE["price_book"])
    assert book.book.name == "ACME Q4 quote" and book.book.discounts == {"nics": 12.5, "switches": 20.0}


def test_a_format_3_read_only_token_opens_the_pipeline_scenario_recomputed(v3_store):
    made = MADE["share_token"]
    info = v3_store.open_share_token(made["token"])
    assert info.scenario_id == made["scenario_id"] and info.format == 3
    scenario = info.scenario()
    assert scenario == documents.read_scenario(v3_file(made["case"]))[0]
    assert scenario.workload.parallelism == "pipeline" and "pipeline_microbatches" not in info.document["workload"]
    assert_same_results(figures(scenario), made["results"])
    assert info.recomputed()


def test_a_format_3_version_saved_again_records_the_current_format_and_no_change(v3_store):
    made = MADE["versions"][3]
    old = v3_store.load(OWNER, made["scenario_id"])
    new = v3_store.save_scenario(OWNER, old.scenario(), old.scenario_id, note="resaved")
    loaded = v3_store.load(OWNER, new.scenario_id)
    assert (loaded.version, loaded.format) == (2, formats.CURRENT) and loaded.recomputed() == []
    assert loaded.scenario() == old.scenario()
    assert "pipeline_microbatches" not in _stored(v3_store, new.scenario_id, 2)[0]["workload"]
