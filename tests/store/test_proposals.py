"""Customers' quote requests and numbered quotes, on SQLite and PostgreSQL: the migration from the
previous schema keeps every saved scenario, numbers stay unique under parallel saves, a request is
validated, rate-limited and stored at list prices, customers can neither list nor open requests,
and a reopened quote shows its pinned figures beside the current model's."""

from __future__ import annotations

import datetime as dt
import re
import threading

import pytest
import sqlalchemy as sa
from alembic import command
from hypothesis import given, settings
from hypothesis import strategies as hyp

import store
from costmodel.scenario.schema import DerivedPriceBook, Scenario
from store import migrate, proposals
from store.engine import make_engine
from store.proposals import InvalidRequest, Throttled
from store.tables import proposals as proposals_table

ALICE, BOB = "local:alice", "local:bob"
ASK = {"name": "Li Wei", "company": "Acme <b>AI</b>", "contact": "li.wei@example.cn", "note": "64 nodes\nby March"}


@pytest.fixture
def db(store_url) -> store.Store:
    return store.open_store(store_url)


def _quote(db: store.Store, owner: str = ALICE, customer: str = "Acme", **kw) -> proposals.Proposal:
    version = db.save_scenario(owner, Scenario(name="Acme pod"))
    return proposals.create_proposal(db, owner, owner.split(":")[1], version, customer, "Training pod",
                                     proposals.default_valid_until(), **kw)


def test_the_migration_from_the_previous_schema_keeps_saved_scenarios(store_url):
    """A database at the previous revision (0003) with a saved scenario upgrades to head; the scenario
    opens unchanged and can be numbered."""
    engine = make_engine(store_url)
    cfg = migrate._config()
    with engine.connect() as conn, conn.begin():
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0003")
    assert "proposals" not in sa.inspect(engine).get_table_names()
    old = store.Store(engine).save_scenario(ALICE, Scenario(name="Before the desk", cluster={"nodes": 48}))
    engine.dispose()
    db = store.open_store(store_url)
    assert migrate.current_revision(db.engine) == migrate.head_revision() == "0004"
    assert {"proposals", "quote_requests"} <= set(sa.inspect(db.engine).get_table_names())
    again = db.load(ALICE, old.scenario_id)
    assert again.sha256 == old.sha256 and again.scenario().cluster.nodes == 48
    made = proposals.create_proposal(db, ALICE, "alice", again, "Acme", "Pod", proposals.default_valid_until())
    assert made.version == 1 and made.scenario_id == old.scenario_id


def test_numbers_are_unique_and_gapless_under_parallel_saves(db):
    versions = [db.save_scenario(ALICE, Scenario(name=f"S{i}")) for i in range(12)]
    made: list[str] = []
    errors: list[BaseException] = []
    start = threading.Barrier(len(versions))

    def work(v):
        try:
            start.wait()
            made.append(proposals.create_proposal(db, ALICE, "alice", v, "Acme", "Pod",
                                                  proposals.default_valid_until()).number)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(v,)) for v in versions]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    assert len(set(made)) == len(made) == len(versions)
    year = dt.datetime.now(dt.UTC).year
    assert all(re.fullmatch(rf"FT-{year}-\d{{6}}", n) for n in made)
    assert sorted(int(n.rsplit("-", 1)[1]) for n in made) == list(range(1, len(versions) + 1))
    with db.engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).where(proposals_table.c.number.is_(None))).scalar() == 0


def test_a_request_is_stored_at_list_prices_and_only_sales_see_it(db):
    book = DerivedPriceBook(name="ACME secret", discounts={"switches": 40.0})
    negotiated = Scenario(name="Acme pod", custom_price_book=book)
    req = proposals.submit_request(db, negotiated, **ASK, lang="zh", browser="b1")
    for customer in (None, ""):
        with pytest.raises(store.AccessDenied):
            proposals.list_requests(db, customer)
        with pytest.raises(store.AccessDenied):
            proposals.load_request(db, customer, req.id)
        with pytest.raises(store.AccessDenied):
            proposals.list_proposals(db, customer)
    listed = proposals.list_requests(db, BOB)
    assert [(r.id, r.company, r.note, r.document) for r in listed] == [(req.id, ASK["company"], ASK["note"], None)]
    opened = proposals.load_request(db, BOB, req.id)
    assert opened.scenario().custom_price_book is None and "ACME secret" not in str(opened.document)
    assert opened.scenario().name == "Acme pod" and opened.lang == "zh"
    with pytest.raises(store.NotFound):
        proposals.load_request(db, BOB, "0" * 32)


@pytest.mark.parametrize(("field", "value", "code"), [
    ("name", "   ", "blank"), ("company", "", "blank"), ("contact", "call me maybe", "contact_format"),
    ("contact", "12345", "contact_format"), ("contact", "li@example", "contact_format"),
    ("name", "Li\u202eWei", "control_characters"), ("note", "x" * 1001, "too_long"),
    ("company", "A\nB", "control_characters"),
])
def test_each_refused_field_is_named_and_nothing_is_stored(db, field, value, code):
    with pytest.raises(InvalidRequest) as err:
        proposals.submit_request(db, Scenario(), **{**ASK, field: value}, browser="b1")
    assert err.value.errors == {field: code}
    assert proposals.list_requests(db, BOB) == []


@settings(max_examples=60, deadline=None)
@given(hyp.booleans(), hyp.text(alphabet="0123456789 -().", min_size=1, max_size=30))
def test_a_phone_number_is_accepted_exactly_when_it_has_6_to_15_digits(plus, body):
    text = ("+" if plus else "") + body
    digits = sum(ch.isdigit() for ch in text)
    assert proposals.contact_ok(text) == (6 <= digits <= 15)
    assert not proposals.contact_ok(body + "+1")  # a plus only leads


def test_requests_are_capped_per_browser_and_per_address(db):
    pol = proposals.desk_policy()
    now = 1_900_000_000.0
    for i in range(pol.per_browser):
        proposals.submit_request(db, Scenario(), **ASK, browser="b1", client="198.51.100.7", now=now + i)
    with pytest.raises(Throttled) as err:
        proposals.submit_request(db, Scenario(), **ASK, browser="b1", client="198.51.100.7", now=now + 10)
    assert err.value.wait_s > 0
    for i in range(pol.per_client - pol.per_browser):  # other browsers behind the same address, up to its cap
        proposals.submit_request(db, Scenario(), **ASK, browser=f"b{i + 2}", client="198.51.100.7", now=now + 20)
    with pytest.raises(Throttled):
        proposals.submit_request(db, Scenario(), **ASK, browser="fresh", client="198.51.100.7", now=now + 30)
    proposals.submit_request(db, Scenario(), **ASK, browser="fresh", client="203.0.113.9", now=now + 30)
    assert len(proposals.list_requests(db, BOB)) == pol.per_client + 1


def test_a_quote_pins_its_version_and_shows_pinned_and_current_figures(db):
    made = _quote(db)
    assert made.price_book.startswith("public@") and made.author_name == "alice"
    db.save_scenario(ALICE, Scenario(name="Acme pod", cluster={"nodes": 200}), made.scenario_id)  # edited later
    with pytest.raises(store.NotFound):  # its scenario may carry the author's negotiated prices
        proposals.open_proposal(db, BOB, made.number)
    found, info = proposals.open_proposal(db, ALICE, made.number)
    assert found == made and info.version == 1 and info.scenario() == Scenario(name="Acme pod")
    assert found.recomputed(info.scenario()) == []  # same model: the same figures
    pinned = dict(found.summary)
    fabric = next(iter(pinned["fabrics"]))
    pinned["fabrics"] = {**pinned["fabrics"], fabric: {**pinned["fabrics"][fabric], "tco_total": 1.0}}
    with db.engine.begin() as conn:  # as if an older model had priced it
        conn.execute(proposals_table.update().where(proposals_table.c.number == made.number)
                     .values(summary=store.repository.canonical_json(pinned)))
    older, info = proposals.open_proposal(db, ALICE, made.number)
    changes = older.recomputed(info.scenario())
    assert [(c.fabric, c.metric, c.was) for c in changes] == [(fabric, "tco_total", 1.0)]
    assert changes[0].now == pytest.approx(made.summary["fabrics"][fabric]["tco_total"])


def test_a_quote_is_refused_for_a_customer_another_owners_version_or_a_past_date(db):
    version = db.save_scenario(ALICE, Scenario(name="Acme pod"))
    with pytest.raises(store.AccessDenied):
        proposals.create_proposal(db, None, "", version, "Acme", "Pod", proposals.default_valid_until())
    with pytest.raises(store.NotFound):
        proposals.create_proposal(db, BOB, "bob", version, "Acme", "Pod", proposals.default_valid_until())
    with pytest.raises(InvalidRequest) as err:
        proposals.create_proposal(db, ALICE, "alice", version, " ", "Pod",
                                  dt.date.today() - dt.timedelta(days=2))
    assert err.value.errors == {"customer": "blank", "valid_until": "in_past"}
    with pytest.raises(store.NotFound):
        proposals.open_proposal(db, ALICE, "FT-2026-999999")
    with pytest.raises(store.NotFound):
        proposals.open_proposal(db, ALICE, "' OR 1=1 --")


def test_quotes_made_from_a_request_are_listed_with_it(db):
    req = proposals.submit_request(db, Scenario(), **ASK, browser="b1")
    first, second = _quote(db, request_id=req.id), _quote(db, BOB)
    assert proposals.proposals_of_requests(db, ALICE) == {req.id: [first.number]}
    third = _quote(db)
    assert [p.number for p in proposals.list_proposals(db, ALICE)] == [third.number, first.number]
    assert [p.number for p in proposals.list_proposals(db, BOB)] == [second.number]
