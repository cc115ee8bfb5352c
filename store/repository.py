"""The store: versioned scenarios, price books and read-only share tokens, each with an owner.

Every method takes the acting ``owner`` ("local:<user>" / "oidc:<subject>"); ``None`` is a
public customer session, which may only open a share token. An item of another owner is
reported exactly like a missing one (:class:`NotFound`), so ids and tokens reveal nothing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import sqlalchemy as sa

from costmodel import api
from costmodel.errors import ScenarioError
from costmodel.scenario import formats
from costmodel.scenario.price_books import quote_only
from costmodel.scenario.schema import DerivedPriceBook, Scenario
from costmodel.scenario.validation import validate_scenario

from . import migrate, throttle
from .config import database_url
from .engine import WRITE, is_sqlite, make_engine
from .errors import AccessDenied, Conflict, NotFound
from .policy import policy
from .tables import login_failures, price_books, scenario_versions, scenarios, share_tokens
from .throttle import Rule

_ID = re.compile(r"^[0-9a-f]{32}$")
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,100}$")
MAX_NOTE = 500


def canonical_json(doc: dict) -> str:
    """Compact JSON with sorted keys: the stored form of a document."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _new_id() -> str:
    return secrets.token_hex(16)


def _loads(text: str | None) -> dict | None:
    """A stored JSON summary, or None (none stored, or not a JSON object)."""
    try:
        value = json.loads(text) if text else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _require(owner: str | None) -> str:
    if not owner:
        raise AccessDenied("sign in as a sales engineer to use saved scenarios and price books")
    return owner


def _check_id(item_id: str) -> str:
    if not isinstance(item_id, str) or not _ID.match(item_id):
        raise NotFound("no such item", "link_not_valid")
    return item_id


@dataclass(frozen=True)
class ScenarioInfo:
    """One saved scenario as listed: id, name, latest version and times [epoch s]."""

    id: str
    name: str
    latest_version: int
    created_at: float
    updated_at: float
    deleted_at: float | None


@dataclass(frozen=True)
class VersionInfo:
    """One saved version; ``document`` is the scenario as a dict in the current format (None in listings).

    ``format`` is the format it was saved in (1: before formats existed; the document was migrated);
    ``summary`` the results it had when saved (:func:`costmodel.api.summarize`; None: saved before
    summaries). Compare with :func:`costmodel.scenario.formats.changes` / :meth:`recomputed`.
    """

    scenario_id: str
    version: int
    name: str
    note: str
    author: str
    created_at: float
    sha256: str
    document: dict | None = None
    format: int = formats.CURRENT
    summary: dict | None = None

    def scenario(self) -> Scenario:
        """The version as a validated scenario."""
        return Scenario.model_validate(self.document)

    def recomputed(self) -> list[formats.Change]:
        """Figures the current model computes differently (> 0.1 %) from those saved with this version."""
        return formats.changes(self.summary, api.summarize(self.scenario()))


def _summary(scenario: Scenario) -> str | None:
    """The stored results summary of a scenario (None when the model cannot evaluate it)."""
    try:
        return canonical_json(api.summarize(scenario))
    except (ScenarioError, ValueError, ArithmeticError):
        return None


@dataclass(frozen=True)
class PriceBookInfo:
    """One saved price book; ``book`` is the derived price book (with its store id)."""

    id: str
    name: str
    revision: int
    updated_at: float
    book: DerivedPriceBook


class Store:
    """Access to one database. Thread-safe (one engine, a connection per call)."""

    def __init__(self, engine: sa.Engine):
        self.engine = engine

    # -- plumbing -------------------------------------------------------------------------
    @contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        """A write transaction (SQLite: BEGIN IMMEDIATE); committed on success."""
        with self.engine.connect() as conn:
            if is_sqlite(self.engine):
                conn.execution_options(**WRITE)
            with conn.begin():
                yield conn

    @contextmanager
    def _read(self) -> Iterator[sa.Connection]:
        with self.engine.connect() as conn, conn.begin():
            yield conn

    # -- scenarios ------------------------------------------------------------------------
    def save_scenario(self, owner: str | None, scenario: Scenario, scenario_id: str | None = None,
                      note: str = "", expect_version: int | None = None) -> VersionInfo:
        """Save ``scenario`` as a new scenario (``scenario_id`` None) or as its next version.

        With ``expect_version``, :class:`Conflict` is raised (nothing saved) when the scenario's latest
        version is no longer that one — an edit built on a version someone has since superseded.
        """
        owner = _require(owner)
        doc = scenario.model_dump(mode="json")
        text = canonical_json(doc)
        digest = _sha(text)
        now = time.time()
        note = note.strip()[:MAX_NOTE]
        summary = _summary(scenario)  # before the transaction: the write lock is held for less time
        with self._write() as conn:
            if scenario_id is None:
                sid, version = _new_id(), 1
                conn.execute(scenarios.insert().values(
                    id=sid, owner=owner, name=scenario.name, latest_version=1,
                    created_at=now, updated_at=now, deleted_at=None))
            else:
                sid = _check_id(scenario_id)
                row = conn.execute(
                    sa.select(scenarios.c.latest_version)
                    .where(scenarios.c.id == sid, scenarios.c.owner == owner, scenarios.c.deleted_at.is_(None))
                    .with_for_update()
                ).first()
                if row is None:
                    raise NotFound("no such scenario", "link_not_valid")
                if expect_version is not None and row.latest_version != expect_version:
                    raise Conflict(f"the scenario was saved again meanwhile (now version {row.latest_version}); "
                                   "reload it and try again")
                version = row.latest_version + 1
                conn.execute(scenarios.update().where(scenarios.c.id == sid).values(
                    latest_version=version, name=scenario.name, updated_at=now))
            conn.execute(scenario_versions.insert().values(
                scenario_id=sid, version=version, name=scenario.name, document=text, sha256=digest,
                note=note, author=owner, created_at=now, format=formats.CURRENT, summary=summary))
        return VersionInfo(sid, version, scenario.name, note, owner, now, digest, doc, formats.CURRENT,
                           json.loads(summary) if summary else None)

    def list_scenarios(self, owner: str | None, deleted: bool = False) -> list[ScenarioInfo]:
        """The owner's scenarios, newest first (``deleted``: the ones in the bin instead)."""
        owner = _require(owner)
        cond = scenarios.c.deleted_at.is_not(None) if deleted else scenarios.c.deleted_at.is_(None)
        with self._read() as conn:
            rows = conn.execute(
                sa.select(scenarios).where(scenarios.c.owner == owner, cond)
                .order_by(scenarios.c.updated_at.desc(), scenarios.c.id)
            ).all()
        return [ScenarioInfo(r.id, r.name, r.latest_version, r.created_at, r.updated_at, r.deleted_at) for r in rows]

    def _owned(self, conn: sa.Connection, owner: str, scenario_id: str, include_deleted: bool = False):
        cond = [scenarios.c.id == _check_id(scenario_id), scenarios.c.owner == owner]
        if not include_deleted:
            cond.append(scenarios.c.deleted_at.is_(None))
        row = conn.execute(sa.select(scenarios).where(*cond)).first()
        if row is None:
            raise NotFound("no such scenario", "link_not_valid")
        return row

    @staticmethod
    def _version(conn: sa.Connection, scenario_id: str, version: int) -> VersionInfo:
        row = conn.execute(sa.select(scenario_versions).where(
            scenario_versions.c.scenario_id == scenario_id, scenario_versions.c.version == version)).first()
        if row is None:
            raise NotFound("no such version", "link_not_valid")
        # a document of an older format is migrated on every load (the stored text is never rewritten)
        doc, version = formats.upgrade(json.loads(row.document), version=row.format or formats.FIRST)
        return VersionInfo(row.scenario_id, row.version, row.name, row.note, row.author, row.created_at,
                           row.sha256, doc, version, _loads(row.summary))

    def load(self, owner: str | None, scenario_id: str, version: int | None = None) -> VersionInfo:
        """A version of one of the owner's scenarios (the latest when ``version`` is None)."""
        owner = _require(owner)
        with self._read() as conn:
            row = self._owned(conn, owner, scenario_id)
            return self._version(conn, row.id, row.latest_version if version is None else int(version))

    def versions(self, owner: str | None, scenario_id: str) -> list[VersionInfo]:
        """Every version of a scenario, newest first (documents not included)."""
        owner = _require(owner)
        with self._read() as conn:
            row = self._owned(conn, owner, scenario_id)
            rows = conn.execute(
                sa.select(*(c for c in scenario_versions.c if c.name != "document"))
                .where(scenario_versions.c.scenario_id == row.id).order_by(scenario_versions.c.version.desc())
            ).all()
        return [VersionInfo(r.scenario_id, r.version, r.name, r.note, r.author, r.created_at, r.sha256,
                            None, r.format or formats.FIRST, _loads(r.summary)) for r in rows]

    def restore_version(self, owner: str | None, scenario_id: str, version: int) -> VersionInfo:
        """Make an earlier version the latest again (as a new version; history is kept)."""
        old = self.load(owner, scenario_id, version)
        latest = self.load(owner, scenario_id).version
        return self.save_scenario(owner, old.scenario(), scenario_id, note=f"restored version {version}",
                                  expect_version=latest)

    def rename(self, owner: str | None, scenario_id: str, name: str) -> VersionInfo:
        """Rename: a new version whose only change is the name (ScenarioError names a bad name)."""
        latest = self.load(owner, scenario_id)
        renamed = validate_scenario({**latest.document, "name": name})
        return self.save_scenario(owner, renamed, scenario_id, note=f"renamed from {latest.name!r}",
                                  expect_version=latest.version)

    def duplicate(self, owner: str | None, scenario_id: str, name: str | None = None) -> VersionInfo:
        """A new scenario starting from the latest version of this one."""
        latest = self.load(owner, scenario_id)
        copy = validate_scenario({**latest.document, "name": name or f"{latest.name} (copy)"[:200]})
        return self.save_scenario(owner, copy, note=f"copy of {latest.name!r} version {latest.version}")

    def delete(self, owner: str | None, scenario_id: str) -> None:
        """Move a scenario to the bin (undo with :meth:`undelete`); its share links stop working."""
        self._set_deleted(owner, scenario_id, time.time())

    def undelete(self, owner: str | None, scenario_id: str) -> None:
        """Take a scenario back out of the bin."""
        self._set_deleted(owner, scenario_id, None)

    def _set_deleted(self, owner: str | None, scenario_id: str, when: float | None) -> None:
        owner = _require(owner)
        with self._write() as conn:
            self._owned(conn, owner, scenario_id, include_deleted=True)
            conn.execute(scenarios.update().where(scenarios.c.id == scenario_id).values(deleted_at=when))

    # -- share tokens ---------------------------------------------------------------------
    def create_share_token(self, owner: str | None, scenario_id: str, version: int | None = None) -> str:
        """A new unguessable read-only token for one scenario (a fixed version, or the latest)."""
        owner = _require(owner)
        token = secrets.token_urlsafe(policy().share_token_bytes)
        with self._write() as conn:
            row = self._owned(conn, owner, scenario_id)
            if version is not None:
                self._version(conn, row.id, int(version))
            conn.execute(share_tokens.insert().values(
                token_sha256=_sha(token), scenario_id=row.id, version=version, owner=owner,
                created_at=time.time(), revoked_at=None))
        return token

    def share_tokens(self, owner: str | None, scenario_id: str) -> list[dict]:
        """The live tokens of a scenario: hash prefix, version, created [epoch s] (tokens are not stored)."""
        owner = _require(owner)
        with self._read() as conn:
            row = self._owned(conn, owner, scenario_id)
            rows = conn.execute(sa.select(share_tokens).where(
                share_tokens.c.scenario_id == row.id, share_tokens.c.revoked_at.is_(None))
                .order_by(share_tokens.c.created_at.desc())).all()
        return [{"id": r.token_sha256[:12], "version": r.version, "created_at": r.created_at} for r in rows]

    def revoke_share_token(self, owner: str | None, scenario_id: str, token_id: str) -> None:
        """Revoke the token whose hash starts with ``token_id`` (as listed by :meth:`share_tokens`)."""
        owner = _require(owner)
        if not re.fullmatch(r"[0-9a-f]{12}", token_id or ""):
            raise NotFound("no such link", "link_not_valid")
        with self._write() as conn:
            row = self._owned(conn, owner, scenario_id)
            done = conn.execute(share_tokens.update().where(
                share_tokens.c.scenario_id == row.id, share_tokens.c.token_sha256.startswith(token_id),
                share_tokens.c.revoked_at.is_(None)).values(revoked_at=time.time()))
            if done.rowcount == 0:
                raise NotFound("no such link", "link_not_valid")

    def open_share_token(self, token: str) -> VersionInfo:
        """The scenario version a token grants read access to; anyone may call this.

        A derived price book in it is reduced to the prices of the items it uses
        (:func:`costmodel.scenario.price_books.quote_only`): same results, no book.
        """
        if not isinstance(token, str) or not _TOKEN.match(token):
            raise NotFound("this link is not valid", "link_not_valid")
        with self._read() as conn:
            row = conn.execute(
                sa.select(share_tokens.c.scenario_id, share_tokens.c.version, scenarios.c.latest_version)
                .join(scenarios, scenarios.c.id == share_tokens.c.scenario_id)
                .where(share_tokens.c.token_sha256 == _sha(token), share_tokens.c.revoked_at.is_(None),
                       scenarios.c.deleted_at.is_(None))
            ).first()
            if row is None:
                raise NotFound("this link is not valid or was revoked", "link_not_valid")
            info = self._version(conn, row.scenario_id, row.version or row.latest_version)
        # a customer gets the prices of the quote, never the sales price book behind them
        quote = quote_only(info.scenario()).model_dump(mode="json")
        return dataclasses.replace(info, document=quote)

    # -- price books ----------------------------------------------------------------------
    def save_price_book(self, owner: str | None, book: DerivedPriceBook) -> PriceBookInfo:
        """Save a price book: new when ``book.id`` is empty, else its next revision."""
        owner = _require(owner)
        now = time.time()
        with self._write() as conn:
            if not book.id:
                bid, rev = _new_id(), 1
                book = book.model_copy(update={"id": bid})
                conn.execute(price_books.insert().values(
                    id=bid, owner=owner, name=book.name, document=canonical_json(book.model_dump(mode="json")),
                    revision=1, created_at=now, updated_at=now, deleted_at=None))
            else:
                bid = _check_id(book.id)
                row = conn.execute(sa.select(price_books.c.revision).where(
                    price_books.c.id == bid, price_books.c.owner == owner, price_books.c.deleted_at.is_(None))
                    .with_for_update()).first()
                if row is None:
                    raise NotFound("no such price book")
                rev = row.revision + 1
                conn.execute(price_books.update().where(price_books.c.id == bid).values(
                    name=book.name, document=canonical_json(book.model_dump(mode="json")), revision=rev,
                    updated_at=now))
        return PriceBookInfo(bid, book.name, rev, now, book)

    def list_price_books(self, owner: str | None) -> list[PriceBookInfo]:
        """The owner's price books, by name."""
        owner = _require(owner)
        with self._read() as conn:
            rows = conn.execute(sa.select(price_books).where(
                price_books.c.owner == owner, price_books.c.deleted_at.is_(None))
                .order_by(price_books.c.name, price_books.c.id)).all()
        return [self._book(r) for r in rows]

    def load_price_book(self, owner: str | None, book_id: str) -> PriceBookInfo:
        """One of the owner's price books."""
        owner = _require(owner)
        with self._read() as conn:
            row = conn.execute(sa.select(price_books).where(
                price_books.c.id == _check_id(book_id), price_books.c.owner == owner,
                price_books.c.deleted_at.is_(None))).first()
        if row is None:
            raise NotFound("no such price book")
        return self._book(row)

    def delete_price_book(self, owner: str | None, book_id: str) -> None:
        """Delete a price book (scenarios that used it keep their copy of its prices)."""
        owner = _require(owner)
        with self._write() as conn:
            done = conn.execute(price_books.update().where(
                price_books.c.id == _check_id(book_id), price_books.c.owner == owner,
                price_books.c.deleted_at.is_(None)).values(deleted_at=time.time()))
            if done.rowcount == 0:
                raise NotFound("no such price book")

    @staticmethod
    def _book(row) -> PriceBookInfo:
        return PriceBookInfo(row.id, row.name, row.revision, row.updated_at,
                             DerivedPriceBook.model_validate(json.loads(row.document)))

    # -- sign-in throttle -----------------------------------------------------------------
    def begin_login(self, keys: dict[str, Rule], now: float | None = None) -> tuple[float, list[int]]:
        """Atomically check and count a sign-in attempt for every key (name → its rule: a hard cap of
        failures per window, or a :class:`~store.throttle.Backoff` of growing delays).

        Returns (seconds to wait, []) when a key is throttled, else (0, ids of one provisional failure
        per key) — counted *before* the password is checked, so parallel attempts cannot all pass.
        Settle it with :meth:`finish_login`.
        """
        now = time.time() if now is None else now
        with self._write() as conn:
            if not is_sqlite(self.engine):  # SQLite's BEGIN IMMEDIATE already serialises writers
                for key in sorted(keys):
                    conn.execute(sa.text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": key[:200]})
            self._prune_failures(conn, now)
            waits = [self._wait(conn, key, rule, now) for key, rule in keys.items()]
            if max(waits, default=0.0) > 0:
                return max(waits), []
            ids = [conn.execute(login_failures.insert().values(username=key[:200], at=now)).inserted_primary_key[0]
                   for key in keys]
        return 0.0, ids

    def finish_login(self, ids: list[int], ok: bool, clear_key: str) -> None:
        """After the password check: a success removes the provisional rows and ``clear_key``'s failures."""
        if not ok:
            return
        with self._write() as conn:
            conn.execute(login_failures.delete().where(login_failures.c.id.in_(ids)))
            conn.execute(login_failures.delete().where(login_failures.c.username == clear_key[:200]))

    @staticmethod
    def _prune_failures(conn: sa.Connection, now: float) -> int:
        """Delete failures that have left the window, at most the policy's batch per call; returns the count.

        Runs on every attempt, so the table holds about one window of failures. PostgreSQL skips rows
        another transaction holds (``SKIP LOCKED``): two attempts never wait on each other here.
        """
        pol = policy()
        old = (sa.select(login_failures.c.id).where(login_failures.c.at <= now - pol.login_window_s)
               .limit(pol.prune_batch_rows).with_for_update(skip_locked=True))
        return conn.execute(login_failures.delete().where(login_failures.c.id.in_(old))).rowcount

    @staticmethod
    def _wait(conn: sa.Connection, key: str, rule: Rule, now: float) -> float:
        window = policy().login_window_s
        times = conn.execute(sa.select(login_failures.c.at).where(
            login_failures.c.username == key[:200], login_failures.c.at > now - window)
            .order_by(login_failures.c.at.desc()).limit(throttle.rows_needed(rule))).scalars().all()
        return throttle.wait_s(rule, list(times), now, window)

    def login_wait_s(self, username: str, now: float | None = None, limit: int | None = None) -> float:
        """Seconds until the key ``username`` may try to sign in again (0 = now); shared by all replicas.

        ``limit`` failures within the policy's window block the key (default: the per-user limit).
        """
        limit = policy().max_name_failures if limit is None else limit
        now = time.time() if now is None else now
        with self._read() as conn:
            return self._wait(conn, username, limit, now)

    def record_login(self, username: str, ok: bool, now: float | None = None) -> None:
        """Count a failed sign-in; a success clears the user's failures."""
        now = time.time() if now is None else now
        with self._write() as conn:
            if ok:
                conn.execute(login_failures.delete().where(login_failures.c.username == username[:200]))
            else:
                conn.execute(login_failures.insert().values(username=username[:200], at=now))
                self._prune_failures(conn, now)


def open_store(url: str | None = None, migrate_schema: bool = True) -> Store:
    """Open the store at ``url`` (default: :func:`store.config.database_url`), migrating it to head."""
    engine = make_engine(url or database_url())
    if migrate_schema:
        migrate.upgrade(engine)
    return Store(engine)
