"""Customers' quote requests and numbered quotes ("proposals").

A public customer session may :func:`submit_request` (validated, rate-limited, stored with a copy of
its scenario at public list prices); only signed-in sales engineers may list or open requests. A
sales engineer turns a saved scenario version into a numbered quote with :func:`create_proposal`:
its number ``<prefix>-<year>-<counter>`` comes from the database's own counter (an autoincrement
key, race-free on SQLite and PostgreSQL), and it pins the scenario version, its format, its price
book and the figures it had, so a reopened quote shows its own numbers and what the current model
gives now (:meth:`Proposal.recomputed`). A "quote" elsewhere in the app is a negotiated price book;
a numbered quote is a proposal here. Times are Unix epoch seconds.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import json
import re
import time
import unicodedata
from dataclasses import dataclass

import sqlalchemy as sa
import yaml

from costmodel import api
from costmodel.catalog.loader import load_catalog
from costmodel.scenario import formats
from costmodel.scenario.schema import Scenario

from .errors import NotFound, StoreError
from .policy import POLICY_FILE
from .repository import Store, VersionInfo, _check_id, _loads, _new_id, _require, _summary, canonical_json
from .tables import proposals, quote_requests
from .throttle import Rule

#: longest text per request field [characters] (the table's column sizes)
MAX_CHARS = {"name": 200, "company": 200, "contact": 120, "note": 1000}
_EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s.]{2,}$")
_PHONE = re.compile(r"^\+?[0-9 ()./-]+$")
_PHONE_DIGITS = (6, 15)  # ITU-T E.164: at most 15 digits; fewer than 6 is no reachable number
_NUMBER = re.compile(r"^[A-Z]{1,8}-[0-9]{4}-[0-9]{6,}$")


@dataclass(frozen=True)
class DeskPolicy:
    """Request caps per window [count] (per browser session, per client address, overall), the quote
    number's prefix and a new quote's validity [days]."""

    per_browser: int
    per_client: int
    overall: int
    number_prefix: str
    validity_days: int


@functools.cache
def desk_policy() -> DeskPolicy:
    """The ``quote_requests`` and ``proposals`` sections of ``store/policy.yaml``."""
    raw = yaml.load(POLICY_FILE.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    req, prop = raw["quote_requests"], raw["proposals"]
    return DeskPolicy(int(req["per_browser"]), int(req["per_client"]), int(req["overall"]),
                      str(prop["number_prefix"]), int(prop["validity_days"]))


class InvalidRequest(StoreError):  # noqa: N818
    """Fields of a request were refused: ``errors`` maps each field to a code (blank, too_long,
    control_characters, contact_format)."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()), "request_invalid")
        self.errors = errors


class Throttled(StoreError):  # noqa: N818
    """Too many requests from this browser, this address or overall; ``wait_s`` until the next one."""

    def __init__(self, wait_s: float):
        super().__init__(f"too many requests; try again in {wait_s:.0f} s", "request_throttled")
        self.wait_s = wait_s


@dataclass(frozen=True)
class QuoteRequest:
    """A customer's request; ``document`` (the scenario at list prices) only when opened."""

    id: str
    name: str
    company: str
    contact: str
    note: str
    lang: str
    scenario_name: str
    created_at: float
    format: int
    summary: dict | None = None
    document: dict | None = None

    def scenario(self) -> Scenario:
        """The request's scenario, migrated to the current format."""
        doc, _ = formats.upgrade(dict(self.document or {}), version=self.format)
        return Scenario.model_validate(doc)


@dataclass(frozen=True)
class Proposal:
    """A numbered quote: number, customer, project, validity (ISO date), author; and what it pins."""

    number: str
    customer: str
    project: str
    valid_until: str
    author_name: str
    created_at: float
    scenario_id: str
    version: int
    format: int
    price_book: str
    summary: dict | None = None
    request_id: str | None = None

    def recomputed(self, scenario: Scenario) -> list[formats.Change]:
        """Figures the current model gives differently (> 0.1 %) from those pinned with the quote."""
        return formats.changes(self.summary, api.summarize(scenario))


def _text_error(value: str, limit: int, required: bool = True, lines: bool = False) -> str | None:
    """Why ``value`` is refused (None: accepted); ``lines``: line breaks allowed (a note)."""
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp") for ch in value if not (lines and ch == "\n")):
        return "control_characters"
    if required and not value.strip():
        return "blank"
    return "too_long" if len(value) > limit else None


def contact_ok(contact: str) -> bool:
    """An e-mail address or a phone number (6 to 15 digits, with +, spaces, dots, dashes, brackets).

    >>> [contact_ok(c) for c in ("li.wei@example.cn", "+86 10 6552-9988", "call me", "12@x")]
    [True, True, False, False]
    """
    if "@" in contact:
        return bool(_EMAIL.match(contact))
    digits = sum(ch.isdigit() for ch in contact)
    return bool(_PHONE.match(contact)) and _PHONE_DIGITS[0] <= digits <= _PHONE_DIGITS[1]


def check_request(name: str, company: str, contact: str, note: str = "") -> dict[str, str]:
    """The fields stripped, or :class:`InvalidRequest` naming every refused field and why."""
    fields = {"name": (name or "").strip(), "company": (company or "").strip(),
              "contact": (contact or "").strip(), "note": (note or "").replace("\r\n", "\n").strip()}
    errors = {k: err for k, v in fields.items() if (err := _text_error(v, MAX_CHARS[k], k != "note", k == "note"))}
    if "contact" not in errors and not contact_ok(fields["contact"]):
        errors["contact"] = "contact_format"
    if errors:
        raise InvalidRequest(errors)
    return fields


def request_keys(browser: str, client: str) -> dict[str, Rule]:
    """The counters one request touches: its browser session, its client address ('' unknown), all."""
    pol = desk_policy()
    keys: dict[str, Rule] = {"request:all": pol.overall, f"request:browser:{browser}": pol.per_browser}
    if client:
        keys[f"request:ip:{client}"] = pol.per_client
    return keys


def submit_request(db: Store, scenario: Scenario, name: str, company: str, contact: str, note: str = "",
                   lang: str = "en", browser: str = "", client: str = "", now: float | None = None) -> QuoteRequest:
    """Store a customer's request with its scenario at public list prices (never a negotiated price book).

    Validated first (:class:`InvalidRequest`), then counted against the caps (:class:`Throttled`)."""
    fields = check_request(name, company, contact, note)
    public = scenario.model_copy(update={"custom_price_book": None})
    summary = _summary(public)
    wait, _ = db.begin_login(request_keys(browser, client), now=now)
    if wait > 0:
        raise Throttled(wait)
    rid, at = _new_id(), time.time() if now is None else now
    with db._write() as conn:
        conn.execute(quote_requests.insert().values(
            id=rid, **fields, lang=lang[:8], scenario_name=public.name[:200],
            document=canonical_json(public.model_dump(mode="json")), format=formats.CURRENT, summary=summary,
            created_at=at))
    return QuoteRequest(rid, **fields, lang=lang[:8], scenario_name=public.name[:200], created_at=at,
                        format=formats.CURRENT, summary=_loads(summary))


def _request(row, document: bool) -> QuoteRequest:
    return QuoteRequest(row.id, row.name, row.company, row.contact, row.note, row.lang, row.scenario_name,
                        row.created_at, row.format, _loads(row.summary),
                        json.loads(row.document) if document else None)


def list_requests(db: Store, owner: str | None, limit: int = 200) -> list[QuoteRequest]:
    """The newest requests (sales engineers only: :class:`~store.errors.AccessDenied` for a customer)."""
    _require(owner)
    with db._read() as conn:
        rows = conn.execute(sa.select(*(c for c in quote_requests.c if c.name != "document"))
                            .order_by(quote_requests.c.created_at.desc(), quote_requests.c.id).limit(limit)).all()
    return [_request(r, False) for r in rows]


def load_request(db: Store, owner: str | None, request_id: str) -> QuoteRequest:
    """One request with its scenario (sales engineers only)."""
    _require(owner)
    with db._read() as conn:
        row = conn.execute(sa.select(quote_requests).where(quote_requests.c.id == _check_id(request_id))).first()
    if row is None:
        raise NotFound("no such request", "link_not_valid")
    return _request(row, True)


def default_valid_until(today: dt.date | None = None) -> dt.date:
    """A new quote's validity: today plus the policy's days."""
    return (today or dt.datetime.now(dt.UTC).date()) + dt.timedelta(days=desk_policy().validity_days)


def _price_book_pin(scenario: Scenario) -> str:
    """The price book a quote pins: the catalog book's id and date, and a negotiated book's store id."""
    book = load_catalog().price_book(scenario.price_book)
    custom = scenario.custom_price_book
    return f"{scenario.price_book}@{book.as_of}" + (f"+{custom.id or custom.name}" if custom else "")[:200]


def _proposal(row) -> Proposal:
    return Proposal(row.number, row.customer, row.project, row.valid_until, row.author_name, row.created_at,
                    row.scenario_id, row.version, row.format, row.price_book, _loads(row.summary), row.request_id)


def check_proposal(customer: str, project: str, valid_until: dt.date | None) -> dict[str, str]:
    """The customer and project stripped, or :class:`InvalidRequest` naming each refused field (blank,
    overlong or not plain text; a validity missing or before today)."""
    texts = {"customer": (customer or "").strip(), "project": (project or "").strip()}
    errors = {k: err for k, v in texts.items() if (err := _text_error(v, 200))}
    if not isinstance(valid_until, dt.date):
        errors["valid_until"] = "blank"
    elif valid_until < dt.datetime.now(dt.UTC).date():
        errors["valid_until"] = "in_past"
    if errors:
        raise InvalidRequest(errors)
    return texts


def create_proposal(db: Store, owner: str | None, author_name: str, version: VersionInfo, customer: str,
                    project: str, valid_until: dt.date | None, request_id: str | None = None,
                    now: float | None = None) -> Proposal:
    """Number a saved scenario version (one of the owner's) as a quote for ``customer``'s ``project``.

    The number's counter is the row's key, allocated by the database inside the write transaction, so
    parallel saves on any replica never share a number. Refused: what :func:`check_proposal` refuses, a
    version of another owner (:class:`NotFound`)."""
    owner = _require(owner)
    texts = check_proposal(customer, project, valid_until)
    pinned = db.load(owner, version.scenario_id, version.version)  # the owner's, as stored
    at = time.time() if now is None else now
    pin = _price_book_pin(pinned.scenario())
    with db._write() as conn:
        if request_id is not None:
            _check_id(request_id)
        seq = conn.execute(proposals.insert().values(
            scenario_id=pinned.scenario_id, version=pinned.version, format=pinned.format, price_book=pin,
            summary=canonical_json(pinned.summary) if pinned.summary else None, **texts,
            valid_until=valid_until.isoformat(), author=owner, author_name=(author_name or owner)[:200],
            request_id=request_id, created_at=at)).inserted_primary_key[0]
        year = dt.datetime.fromtimestamp(at, dt.UTC).year
        number = f"{desk_policy().number_prefix}-{year}-{int(seq):06d}"
        conn.execute(proposals.update().where(proposals.c.seq == seq).values(number=number))
        row = conn.execute(sa.select(proposals).where(proposals.c.seq == seq)).one()
    return _proposal(row)


def list_proposals(db: Store, owner: str | None, limit: int = 200) -> list[Proposal]:
    """The owner's newest numbered quotes (their scenarios may carry the owner's negotiated prices)."""
    owner = _require(owner)
    with db._read() as conn:
        rows = conn.execute(sa.select(proposals).where(proposals.c.author == owner)
                            .order_by(proposals.c.seq.desc()).limit(limit)).all()
    return [_proposal(r) for r in rows]


def open_proposal(db: Store, owner: str | None, number: str) -> tuple[Proposal, VersionInfo]:
    """One of the owner's numbered quotes and the scenario version it pins (another's: :class:`NotFound`)."""
    owner = _require(owner)
    if not isinstance(number, str) or not _NUMBER.match(number):
        raise NotFound("no such quote", "link_not_valid")
    with db._read() as conn:
        row = conn.execute(sa.select(proposals).where(proposals.c.number == number,
                                                      proposals.c.author == owner)).first()
        if row is None:
            raise NotFound("no such quote", "link_not_valid")
        info = Store._version(conn, row.scenario_id, row.version)
    found = _proposal(row)
    return found, dataclasses.replace(info, summary=found.summary)


def proposals_of_requests(db: Store, owner: str | None) -> dict[str, list[str]]:
    """Request id → the numbers of the quotes any sales engineer made from it (sales engineers only)."""
    _require(owner)
    with db._read() as conn:
        rows = conn.execute(sa.select(proposals.c.request_id, proposals.c.number)
                            .where(proposals.c.request_id.is_not(None)).order_by(proposals.c.seq)).all()
    out: dict[str, list[str]] = {}
    for r in rows:
        out.setdefault(r.request_id, []).append(r.number)
    return out
