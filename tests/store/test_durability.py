"""Durability of the store under real processes: SIGKILL in the middle of a save, and two writers at once.

The writers are ``tests/store/writer.py`` subprocesses; each prints ``ok <id> <version> <sha256>``
after a save has returned. A version that committed just before a kill may not have been
reported, so the store may hold more versions than reported, never fewer, and never a gap.
"""

from __future__ import annotations

import collections
import hashlib
import json
import os
import queue
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

import store
from costmodel.scenario.schema import Scenario
from store.repository import canonical_json
from store.tables import scenario_versions, scenarios

ROOT = Path(__file__).resolve().parents[2]
WRITER = Path(__file__).with_name("writer.py")
OWNER = "local:durability"  # writer.OWNER
KILLS = 50
RUN_S = 10
POOL = 2  # writers started ahead of their turn: interpreter start-up (~1 s) dominates a repetition
START_TIMEOUT_S = 90  # interpreter start + imports + open_store, on a loaded CI machine
LINE = re.compile(r"^ok ([0-9a-f]{32}) (\d+) ([0-9a-f]{64})\n$")


class Writer:
    """One ``writer.py --gate`` subprocess; a thread drains its stdout into a queue."""

    def __init__(self, url: str, *args: str, log: Path):
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.log = log
        with log.open("w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, str(WRITER), url, *args, "--gate"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=err, text=True, cwd=ROOT, env=env)
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        for line in self.proc.stdout:
            self._queue.put(line)
        self._queue.put(None)

    def why(self) -> str:
        return f"writer pid {self.proc.pid} exit {self.proc.poll()}; stderr:\n{self.log.read_text()[-3000:]}"

    def next_line(self, timeout: float) -> str:
        """The next stdout line (AssertionError on timeout or end of output)."""
        try:
            line = self._queue.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no output within {timeout} s; {self.why()}") from None
        assert line is not None, f"writer ended early; {self.why()}"
        self.lines.append(line)
        return line

    def wait_ready(self) -> None:
        """Wait until the writer has started and opened the store."""
        assert self.next_line(START_TIMEOUT_S) == "ready\n", self.why()

    def release(self) -> None:
        """Let a ready writer start saving."""
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()

    def kill(self) -> None:
        """SIGKILL (no-op when it has ended) and reap."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def finish(self, timeout: float) -> list[tuple[str, int, str]]:
        """Wait for the end of output; the ``ok`` lines as (scenario id, version, sha256)."""
        self.proc.wait(timeout=timeout)
        self._reader.join(timeout=30)
        assert not self._reader.is_alive(), "stdout not closed after the writer ended"
        while (line := self._queue.get_nowait()) is not None:
            self.lines.append(line)
        oks = []
        for line in self.lines[1:]:  # after "ready"
            m = LINE.match(line)
            assert m, f"unexpected writer output {line!r}; {self.why()}"
            oks.append((m[1], int(m[2]), m[3]))
        return oks


@pytest.fixture
def spawn(tmp_path):
    """Start writers; any still running at the end are killed."""
    started: list[Writer] = []

    def start(url: str, *args: str) -> Writer:
        w = Writer(url, *args, log=tmp_path / f"writer-{len(started)}.err")
        started.append(w)
        return w

    yield start
    for w in started:
        if w.proc.poll() is None:
            w.proc.kill()
            w.proc.wait(timeout=30)
        w._reader.join(timeout=30)
        for pipe in (w.proc.stdin, w.proc.stdout):
            try:
                pipe.close()
            except OSError:  # stdin of a writer that is gone
                pass


def _sha(doc: dict) -> str:
    return hashlib.sha256(canonical_json(doc).encode("utf-8")).hexdigest()


def _stored(db: store.Store) -> dict[str, dict[int, str]]:
    """scenario id → version → sha256 of every stored version, each document re-hashed and checked.

    One statement, so one snapshot: on PostgreSQL the COMMIT of a writer killed a moment ago
    may still land while the test reads.
    """
    sv = scenario_versions
    with db.engine.connect() as conn:
        rows = conn.execute(
            sa.select(scenarios.c.id, scenarios.c.latest_version, sv.c.version, sv.c.sha256, sv.c.document)
            .select_from(scenarios.outerjoin(sv, sv.c.scenario_id == scenarios.c.id))).all()
    out: dict[str, dict[int, str]] = collections.defaultdict(dict)
    latest: dict[str, int] = {}
    for sid, latest_version, version, sha, document in rows:
        latest[sid] = latest_version
        assert version is not None, f"{sid}: a scenario without versions"
        assert _sha(json.loads(document)) == sha, f"version {version} of {sid}: document does not match its sha256"
        out[sid][version] = sha
    for sid, versions in out.items():
        assert sorted(versions) == list(range(1, len(versions) + 1)), f"{sid}: versions with a gap"
        assert latest[sid] == len(versions), f"{sid}: latest_version {latest[sid]} but {len(versions)} versions"
    return out


def _sqlite_file_checks(url: str) -> None:
    path = make_url(url).database
    with sqlite3.connect(path, timeout=30) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    raw.close()


def test_a_writer_killed_mid_save_leaves_every_earlier_version_intact(store_url, spawn):
    """A writer process killed with SIGKILL in the middle of saving leaves every earlier version
    intact and the store opens cleanly; repeated 50 times."""
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    db = store.open_store(store_url)
    first = db.save_scenario(OWNER, Scenario(name="durability", cluster={"nodes": 40}))
    db.engine.dispose()
    sid = first.scenario_id
    reported = {1: first.sha256}  # version → sha256, every version a writer said was committed
    unreported = 0  # kills that landed after a commit and before its "ok" line
    pool = collections.deque(spawn(store_url, "crash", sid) for _ in range(POOL))
    for rep in range(KILLS):
        writer = pool.popleft()
        if rep + len(pool) + 1 < KILLS:
            pool.append(spawn(store_url, "crash", sid))  # starts up while this one runs
        writer.wait_ready()
        writer.release()
        assert LINE.match(writer.next_line(60)), f"seed {seed}, repetition {rep}"
        time.sleep(rng.uniform(0, 0.050))
        writer.kill()
        assert writer.proc.returncode == -signal.SIGKILL, f"seed {seed}, repetition {rep}; {writer.why()}"
        oks = writer.finish(timeout=30)
        for got_sid, version, sha in oks:
            assert got_sid == sid
            assert version not in reported, f"seed {seed}, repetition {rep}: version {version} reported twice"
            reported[version] = sha

        db = store.open_store(store_url)  # a fresh engine: the store opens (and migrates) cleanly
        try:
            stored = _stored(db)[sid]
            lost = {v: sha for v, sha in reported.items() if stored.get(v) != sha}
            assert not lost, f"seed {seed}, repetition {rep}: committed versions lost or changed: {sorted(lost)}"
            latest = db.load(OWNER, sid)  # >=: see _stored
            assert latest.version >= max(stored) and _sha(latest.document) == latest.sha256
            newest = max(v for _, v, _ in oks)
            unreported += latest.version > newest
            for version in {newest, rng.choice(sorted(reported))}:
                got = db.load(OWNER, sid, version)
                assert got.sha256 == reported[version] == _sha(got.document)
        finally:
            db.engine.dispose()
        if store_url.startswith("sqlite"):
            _sqlite_file_checks(store_url)
    assert len(reported) > KILLS
    print(f"{store_url.split(':')[0]}: {len(reported)} versions reported, {max(stored)} stored, "
          f"{unreported} kills landed after a commit, before its 'ok' line (seed {seed})")


def test_two_writers_on_the_same_and_on_different_scenarios_lose_no_write(store_url, spawn):
    """Two processes saving versions of the same and of different scenarios at once for 10 s lose no write."""
    db = store.open_store(store_url)
    shared = db.save_scenario(OWNER, Scenario(name="shared", cluster={"nodes": 40}))
    db.engine.dispose()
    sid = shared.scenario_id
    writers = [spawn(store_url, "run", str(RUN_S), sid) for _ in range(2)]
    for w in writers:
        w.wait_ready()
    for w in writers:  # released together
        w.release()
    results = []
    for w in writers:
        oks = w.finish(timeout=RUN_S + 120)
        assert w.proc.returncode == 0, w.why()
        results.append(oks)

    db = store.open_store(store_url)
    try:
        stored = _stored(db)
    finally:
        db.engine.dispose()
    shared_versions = [1]
    for oks in results:
        own_sid = oks[0][0]
        own = [v for s, v, _ in oks if s == own_sid]
        mine = [v for s, v, _ in oks if s == sid]
        assert own_sid != sid and len(own) + len(mine) == len(oks)
        assert len(own) > 20 and len(mine) > 20, f"too few saves to prove anything: {len(own)}, {len(mine)}"
        assert own == list(range(1, len(own) + 1)) == sorted(stored[own_sid]), "own scenario: lost or extra versions"
        assert mine == sorted(mine), "a writer's versions of the shared scenario went backwards"
        shared_versions += mine
        for s, v, sha in oks:
            assert stored[s].get(v) == sha, f"version {v} of {s} reported committed but not stored as reported"
    assert sorted(shared_versions) == list(range(1, len(shared_versions) + 1)), "duplicate or missing versions"
    a, b = ([v for s, v, _ in oks if s == sid] for oks in results)
    assert a[0] < b[-1] and b[0] < a[-1], "the writers did not save the shared scenario at the same time"
    assert sorted(stored[sid]) == sorted(shared_versions), "stored versions of the shared scenario != reported"
    assert set(stored) == {sid, results[0][0][0], results[1][0][0]}
    print(f"{store_url.split(':')[0]}: saves per writer {[len(oks) for oks in results]}, "
          f"shared scenario at version {len(shared_versions)}")
