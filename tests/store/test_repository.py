"""The store on SQLite and on a real PostgreSQL: versions, rename, duplicate, bin, tokens, price books."""

from __future__ import annotations

import hashlib
import json
import threading

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

import store
from costmodel import evaluate
from costmodel.scenario.schema import DerivedPriceBook, Scenario
from store import migrate
from store.tables import metadata

ALICE, BOB = "local:alice", "local:bob"


@pytest.fixture
def db(store_url) -> store.Store:
    return store.open_store(store_url)


def test_migrations_create_exactly_the_tables(db):
    assert migrate.current_revision(db.engine) == migrate.head_revision()
    with db.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), metadata)
    assert diff == []
    store.open_store(str(db.engine.url.render_as_string(hide_password=False)))  # a second open is a no-op


def test_every_save_is_a_version_and_old_versions_stay(db):
    v1 = db.save_scenario(ALICE, Scenario(name="Acme"))
    v2 = db.save_scenario(ALICE, Scenario(name="Acme", cluster={"nodes": 64}), v1.scenario_id, note="bigger")
    assert (v1.version, v2.version) == (1, 2)
    assert db.load(ALICE, v1.scenario_id, 1).scenario().cluster.nodes == Scenario().cluster.nodes
    assert db.load(ALICE, v1.scenario_id).scenario().cluster.nodes == 64
    assert [v.version for v in db.versions(ALICE, v1.scenario_id)] == [2, 1]
    assert db.versions(ALICE, v1.scenario_id)[0].note == "bigger"
    v3 = db.restore_version(ALICE, v1.scenario_id, 1)
    assert v3.version == 3 and v3.scenario() == db.load(ALICE, v1.scenario_id, 1).scenario()
    assert len(db.versions(ALICE, v1.scenario_id)) == 3


def test_rename_duplicate_delete_and_undo(db):
    v = db.save_scenario(ALICE, Scenario(name="Acme"))
    renamed = db.rename(ALICE, v.scenario_id, "Acme <b>2027</b>")
    assert renamed.version == 2 and db.load(ALICE, v.scenario_id).name == "Acme <b>2027</b>"
    copy = db.duplicate(ALICE, v.scenario_id)
    assert copy.scenario_id != v.scenario_id and copy.version == 1 and copy.name.endswith("(copy)")
    assert {s.id for s in db.list_scenarios(ALICE)} == {v.scenario_id, copy.scenario_id}
    db.delete(ALICE, v.scenario_id)
    assert [s.id for s in db.list_scenarios(ALICE)] == [copy.scenario_id]
    assert [s.id for s in db.list_scenarios(ALICE, deleted=True)] == [v.scenario_id]
    with pytest.raises(store.NotFound):
        db.load(ALICE, v.scenario_id)
    db.undelete(ALICE, v.scenario_id)
    assert db.load(ALICE, v.scenario_id).version == 2


def test_results_of_a_loaded_version_equal_the_saved_scenario(db):
    scen = Scenario(name="x", cluster={"nodes": 48}, facility={"pue": 1.3})
    v = db.save_scenario(ALICE, scen)
    assert evaluate(db.load(ALICE, v.scenario_id).scenario()).to_dict() == evaluate(scen).to_dict()


def test_owners_and_customers_are_kept_apart(db):
    v = db.save_scenario(ALICE, Scenario(name="secret deal"))
    book = db.save_price_book(ALICE, DerivedPriceBook(name="Acme Q4", discounts={"switches": 20.0}))
    assert db.list_scenarios(BOB) == [] and db.list_price_books(BOB) == []
    for call in (lambda: db.load(BOB, v.scenario_id), lambda: db.versions(BOB, v.scenario_id),
                 lambda: db.delete(BOB, v.scenario_id), lambda: db.rename(BOB, v.scenario_id, "x"),
                 lambda: db.create_share_token(BOB, v.scenario_id), lambda: db.load_price_book(BOB, book.id),
                 lambda: db.delete_price_book(BOB, book.id),
                 lambda: db.save_scenario(BOB, Scenario(), v.scenario_id),
                 lambda: db.save_price_book(BOB, book.book)):
        with pytest.raises(store.NotFound):
            call()
    for call in (lambda: db.list_scenarios(None), lambda: db.load(None, v.scenario_id),
                 lambda: db.list_price_books(None), lambda: db.load_price_book(None, book.id),
                 lambda: db.save_scenario(None, Scenario()), lambda: db.save_price_book("", book.book)):
        with pytest.raises(store.AccessDenied):
            call()
    # alice still has both, unchanged
    assert db.load(ALICE, v.scenario_id).name == "secret deal"
    assert db.load_price_book(ALICE, book.id).book.discounts == {"switches": 20.0}


@pytest.mark.parametrize("bad", ["", "1", "../etc", "' OR 1=1 --", "0" * 32 + "x", "A" * 32, None, 5])
def test_malformed_ids_are_not_found(db, bad):
    with pytest.raises(store.NotFound):
        db.load(ALICE, bad)


def test_share_tokens_grant_one_scenario_read_only(db):
    v1 = db.save_scenario(ALICE, Scenario(name="quote"))
    db.save_scenario(ALICE, Scenario(name="quote v2"), v1.scenario_id)
    other = db.save_scenario(ALICE, Scenario(name="other"))
    latest = db.create_share_token(ALICE, v1.scenario_id)
    pinned = db.create_share_token(ALICE, v1.scenario_id, version=1)
    assert len(latest) >= 43 and latest != pinned  # 32 random bytes, base64url
    assert db.open_share_token(latest).name == "quote v2"
    assert db.open_share_token(pinned).version == 1
    assert db.open_share_token(latest).scenario_id != other.scenario_id
    with db.engine.connect() as conn:  # only hashes are stored
        stored = conn.execute(sa.text("SELECT token_sha256 FROM share_tokens")).scalars().all()
    assert latest not in stored and pinned not in stored
    for guess in ("", "x" * 43, latest[:-1] + ("A" if latest[-1] != "A" else "B"), latest + "=", v1.scenario_id,
                  "../" + latest, latest.upper()):
        with pytest.raises(store.NotFound):
            db.open_share_token(guess)
    latest_id = hashlib.sha256(latest.encode()).hexdigest()[:12]
    assert {t["id"] for t in db.share_tokens(ALICE, v1.scenario_id)} >= {latest_id}
    with pytest.raises(store.NotFound):
        db.revoke_share_token(BOB, v1.scenario_id, latest_id)
    db.revoke_share_token(ALICE, v1.scenario_id, latest_id)
    assert len(db.share_tokens(ALICE, v1.scenario_id)) == 1
    with pytest.raises(store.NotFound):
        db.open_share_token(latest)
    db.delete(ALICE, v1.scenario_id)
    with pytest.raises(store.NotFound):
        db.open_share_token(pinned)  # a binned scenario's links stop working
    db.undelete(ALICE, v1.scenario_id)
    assert db.open_share_token(pinned).version == 1


def test_price_books_are_revised_in_place_and_applied_through_the_scenario(db):
    info = db.save_price_book(ALICE, DerivedPriceBook(name="Acme", discounts={"nics": 10.0}))
    again = db.save_price_book(ALICE, info.book.model_copy(update={"discounts": {"nics": 30.0}}))
    assert again.id == info.id and again.revision == 2
    assert [b.book.discounts for b in db.list_price_books(ALICE)] == [{"nics": 30.0}]
    scen = Scenario(custom_price_book=db.load_price_book(ALICE, info.id).book)
    assert evaluate(scen).price_book == "Acme"
    assert evaluate(scen).fabrics[1].tco_total < evaluate(Scenario()).fabrics[1].tco_total
    db.delete_price_book(ALICE, info.id)
    assert db.list_price_books(ALICE) == []


def test_login_throttle_is_shared_and_clears_on_success(db):
    t0 = 1_000_000.0
    for i in range(4):
        db.record_login("carol", ok=False, now=t0 + i)
        assert db.login_wait_s("carol", now=t0 + i, limit=5) == 0
    db.record_login("carol", ok=False, now=t0 + 4)
    wait = db.login_wait_s("carol", now=t0 + 5, limit=5)
    assert 890 < wait <= 900
    assert db.login_wait_s("dave", now=t0 + 5, limit=5) == 0
    assert db.login_wait_s("carol", now=t0 + 901, limit=5) == 0  # the window has passed
    db.record_login("carol", ok=True, now=t0 + 6)
    assert db.login_wait_s("carol", now=t0 + 7, limit=5) == 0


def test_a_client_address_has_its_own_higher_limit(db):
    t0 = 2_000_000.0
    for i in range(10):
        db.record_login("ip:10.0.0.1", ok=False, now=t0 + i)
    assert db.login_wait_s("ip:10.0.0.1", now=t0 + 11, limit=5) > 0
    assert db.login_wait_s("ip:10.0.0.1", now=t0 + 11, limit=50) == 0
    assert db.login_wait_s("ip:10.0.0.1", now=t0 + 11) == 0  # the default: the per-name ceiling


def test_a_share_token_gives_the_quote_never_the_price_book(db):
    book = DerivedPriceBook(name="ACME secret Q4", discounts={"switches": 42.0},
                            fabrics={"ib-xdr-800": {"nic_price": 1.0}})
    scen = Scenario(name="quote", custom_price_book=book)
    v = db.save_scenario(ALICE, scen)
    shared = db.open_share_token(db.create_share_token(ALICE, v.scenario_id))
    text = json.dumps(shared.document)
    assert "ACME" not in text and "42" not in json.dumps(shared.document["custom_price_book"]["discounts"])
    assert "ib-xdr-800" not in text
    assert [f.tco_total for f in evaluate(shared.scenario()).fabrics] == pytest.approx(
        [f.tco_total for f in evaluate(scen).fabrics], rel=1e-12)
    assert db.load(ALICE, v.scenario_id).scenario() == scen  # the owner keeps the book


def test_parallel_sign_in_attempts_cannot_pass_the_limit(db):
    limit = 5
    results: list[float] = []

    def attempt() -> None:
        wait, _ids = db.begin_login({"user:eve": limit})
        results.append(wait)

    threads = [threading.Thread(target=attempt) for _ in range(30)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    assert len(results) == 30
    assert sum(1 for w in results if w == 0) == limit  # exactly five got to check a password
    wait, ids = db.begin_login({"user:eve": limit})
    assert wait > 0 and ids == []


def test_a_successful_attempt_clears_its_provisional_failures(db):
    _, ids = db.begin_login({"user:frank": 5, "ip:10.1.1.1": 50})
    assert len(ids) == 2 and db.login_wait_s("user:frank", limit=1) > 0
    db.finish_login(ids, True, "user:frank")
    assert db.login_wait_s("user:frank", limit=1) == 0 and db.login_wait_s("ip:10.1.1.1", limit=1) == 0


def test_an_edit_built_on_a_superseded_version_is_refused(db):
    v = db.save_scenario(ALICE, Scenario(name="race"))
    db.save_scenario(ALICE, Scenario(name="race", cluster={"nodes": 50}), v.scenario_id)
    with pytest.raises(store.Conflict, match="saved again meanwhile"):
        db.save_scenario(ALICE, Scenario(name="stale"), v.scenario_id, expect_version=1)
    assert db.load(ALICE, v.scenario_id).version == 2
    assert db.rename(ALICE, v.scenario_id, "renamed").version == 3  # rename checks against the latest it read
