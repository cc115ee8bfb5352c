"""Format versions in the store: a store file written by the code before formats (commit 45aa0b2)
migrates to the current schema, its versions, price book and read-only token open with the same
scenario and results; new versions record their format and a results summary, and a load says
which figures the current model changed."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa
from format_fixtures import MANIFEST as ALL
from format_fixtures import assert_same_results, restore_v1_store
from format_fixtures import figures as _figures

import costmodel
from costmodel.scenario import formats
from store import documents
from store.repository import open_store
from store.tables import scenario_versions

MANIFEST = ALL["store"]
OWNER = MANIFEST["owner"]


@pytest.fixture
def old_store(tmp_path):
    """A copy of the format-1 store file, opened (and so migrated) with today's code."""
    path = restore_v1_store(tmp_path / "store.db")
    db = open_store(f"sqlite:///{path}")
    yield db
    db.engine.dispose()


@pytest.mark.parametrize("index", range(3))
def test_a_version_saved_before_formats_loads_with_the_same_scenario_and_results(old_store, index):
    made = MANIFEST["versions"][index]
    info = old_store.load(OWNER, made["scenario_id"], made["version"])
    assert (info.format, info.summary, info.sha256) == (1, None, made["sha256"])
    assert_same_results(_figures(info.scenario()), made["results"])
    assert info.recomputed() == []  # no summary was saved: nothing to compare


def test_old_versions_are_listed_with_their_format_and_the_price_book_opens(old_store):
    listed = old_store.versions(OWNER, MANIFEST["versions"][0]["scenario_id"])
    assert [(v.version, v.format, v.summary) for v in listed] == [(2, 1, None), (1, 1, None)]
    book = old_store.load_price_book(OWNER, MANIFEST["price_book"])
    assert book.book.name == "ACME Q4 quote" and book.book.discounts == {"nics": 12.5, "switches": 20.0}


def test_a_read_only_token_made_before_formats_opens_with_the_same_results(old_store):
    made = MANIFEST["share_token"]
    info = old_store.open_share_token(made["token"])
    assert info.scenario_id == made["scenario_id"] and info.format == 1
    assert "ACME" not in json.dumps(info.document)  # still the quote's prices only, never the book
    assert_same_results(_figures(info.scenario()), made["results"])


def test_a_new_version_records_its_format_and_summary_and_says_when_the_figures_changed(old_store):
    old = old_store.load(OWNER, MANIFEST["versions"][1]["scenario_id"])
    new = old_store.save_scenario(OWNER, old.scenario(), old.scenario_id, note="resaved")
    with old_store.engine.connect() as conn:
        row = conn.execute(sa.select(scenario_versions).where(
            scenario_versions.c.scenario_id == new.scenario_id,
            scenario_versions.c.version == new.version)).one()
    assert row.format == formats.CURRENT and formats.KEY not in json.loads(row.document)
    saved = json.loads(row.summary)
    assert_same_results(saved, MANIFEST["versions"][1]["results"])
    loaded = old_store.load(OWNER, new.scenario_id)
    assert (loaded.format, loaded.summary) == (formats.CURRENT, saved) and loaded.recomputed() == []
    fid = next(iter(saved["fabrics"]))
    saved["fabrics"][fid]["tco_total"] *= 1.02  # as if an older model had computed 2 % more
    with old_store.engine.begin() as conn:
        conn.execute(scenario_versions.update().where(
            scenario_versions.c.scenario_id == new.scenario_id, scenario_versions.c.version == new.version
        ).values(summary=json.dumps(saved)))
    changes = old_store.load(OWNER, new.scenario_id).recomputed()
    assert [(c.fabric, c.metric, c.was) for c in changes] == [(fid, "tco_total", saved["fabrics"][fid]["tco_total"])]
    # "now" is today's model (format 4 recomputes every TCO), not the figure the v1 code saved
    assert changes[0].now == pytest.approx(costmodel.evaluate(loaded.scenario()).fabric(fid).tco_total, rel=1e-9)
    token = old_store.create_share_token(OWNER, new.scenario_id)
    assert [c.fabric for c in old_store.open_share_token(token).recomputed()] == [fid]  # the ?t= link too


def test_an_older_format_document_is_migrated_on_load(old_store, monkeypatch):
    """A stored document is read through the registered migrations (here a test-only rename)."""
    made = MANIFEST["versions"][0]
    with old_store.engine.begin() as conn:
        row = conn.execute(sa.select(scenario_versions.c.document).where(
            scenario_versions.c.scenario_id == made["scenario_id"], scenario_versions.c.version == 1)).one()
        doc = json.loads(row.document)
        doc["cluster"]["servers"] = doc["cluster"].pop("nodes")
        conn.execute(scenario_versions.update().where(
            scenario_versions.c.scenario_id == made["scenario_id"], scenario_versions.c.version == 1
        ).values(document=json.dumps(doc)))

    def renamed(d: dict) -> dict:
        cluster = dict(d["cluster"])
        cluster["nodes"] = cluster.pop("servers")
        return {**d, "cluster": cluster}

    monkeypatch.setitem(formats.MIGRATIONS, 1, renamed)
    info = old_store.load(OWNER, made["scenario_id"], 1)
    assert info.format == 1 and info.document["cluster"]["nodes"] == 48
    assert_same_results(_figures(info.scenario()), made["results"])


def test_an_export_of_an_old_version_reads_back_as_the_current_format(old_store):
    info = old_store.load(OWNER, MANIFEST["versions"][2]["scenario_id"])
    data = documents.export_scenario(info.scenario())
    assert json.loads(data)[formats.KEY] == formats.CURRENT
    assert documents.read_scenario(data) == (info.scenario(), formats.CURRENT)
