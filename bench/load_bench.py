"""Load bench: many concurrent sessions through nginx against two app replicas, each session a
client speaking Streamlit's own websocket protocol (``bench/st_client.py``) — no browsers, so
hundreds of sessions fit in one asyncio process on this 2-core machine.

The stack is the production topology on loopback (``tests/stack.py``): a throwaway PostgreSQL,
two replicas started by ``scripts/serve.sh`` and Debian's nginx on ``deploy/nginx.conf``
(port 8080, sticky sessions by the ``fabric_route`` cookie). The bench starts and stops all of it.

One *input change* of a session (what is timed and checked):

1. on the Cluster page, type a new node count into the number input ``w.cluster.nodes`` — a
   ``rerun_script`` whose widget states carry the new ``int_value``; its ``on_change`` callback
   replaces the session's scenario (check: no error, the input shows the new value);
2. follow the link to Compare — a ``rerun_script`` with Compare's page hash; this run recomputes
   the model (a cache miss: every change of the bench uses a node count not used before) and
   draws the KPI cards (check: the ``st.metric`` cards labelled "TCO, 5 years" show exactly
   ``Money.short(tco_total)`` of ``costmodel.evaluate`` of the preset with that node count, in
   USD, one per fabric, in order);
3. after a think time, back to Cluster (timed and checked, not part of the change latency).

The *change latency* is the sum of the latencies of runs 1 and 2, each from sending its
``rerun_script`` BackMsg to receiving its ``script_finished``: how long a user waits from typing
the number to seeing the new TCO figures, if they click Compare at once. Errors: an exception or
``st.error`` element in the deltas, a compile error, a missing page, a closed websocket, no
``script_finished`` within the timeout, a wrong number.

Users think: before each change and before going back to Cluster a session waits a random
``think`` × U(0.5, 1.5) seconds (``--think``, default 5 s: type a number, click Compare, read
four cards). With ``--think 0`` every session is a closed loop that keeps the servers saturated;
the capacity found by the ramp scales with the think time (the servers are CPU-bound: see the
``CPU/chg`` column, both replicas' CPU time in the phase, opening included, per change).

Phases: warm-up (one session straight to each replica: imports and first runs, not timed);
one session alone through nginx (``--changes`` changes back to back: the baseline); ``--sessions``
concurrent sessions × ``--changes`` changes (all open before the first change; p50/p95 and their
ratios to the baseline, target ≤ 3×; server memory per session = growth of both replicas' VmRSS
once the sessions are open, and after their changes, divided by the number of sessions); a ramp
of 50, 100, 150, … concurrent sessions (``--ramp-step``) × ``--ramp-changes`` changes until the change p95 passes
1 s, ``--ramp-cap`` sessions or the ``--ramp-budget`` time. Sessions per replica and model runs
per replica come from each replica's ``/_stcore/metrics``. What the client does not do like a
browser: see ``bench/st_client.py``.

Usage: ``PYTHONPATH=. python bench/load_bench.py [--quick] [--think S] [--sessions N] ...``
Needs nginx and PostgreSQL (Debian packages) and a free port 8080.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT / "tests", ROOT / "bench", ROOT):
    sys.path.insert(0, str(p))

from st_client import ProtocolError, Session  # noqa: E402

import costmodel  # noqa: E402
from webui.i18n.money import Money, default_rate  # noqa: E402
from webui.i18n.translator import Translator  # noqa: E402

PRESET = "seed-intro-32xA100"
NODES_KEY = "w.cluster.nodes"
QUERY = f"p={PRESET}&lang=en&cur=USD"
P95_LIMIT = 1.0  # [s]
_NODES = itertools.count(40)  # every change of the bench sets a node count not used before


# --- what the Compare page must show


_expected: dict[int, tuple[str, list[str]]] = {}


def expected(nodes: int) -> tuple[str, list[str]]:
    """The TCO card label and the values the Compare page must show for the preset with ``nodes``."""
    if nodes not in _expected:
        data = costmodel.load_preset(PRESET).model_dump(mode="json")
        data["cluster"]["nodes"] = nodes
        res = costmodel.evaluate(costmodel.Scenario.model_validate(data))
        money = Money(res.currency, "USD", default_rate(res.currency, "USD"))
        label = Translator("en")("kpi.tco", years=res.horizon_years)
        _expected[nodes] = label, [money.short(f.tco_total) for f in res.fabrics]
    return _expected[nodes]


def plan(changes: int) -> list[int]:
    """Node counts for ``changes`` changes, their expected cards computed now (outside the timing)."""
    values = [next(_NODES) for _ in range(changes)]
    for n in values:
        expected(n)
    return values


# --- one simulated user


@dataclass
class Stats:
    change: list[float] = field(default_factory=list)  # edit + compare [s]
    edit: list[float] = field(default_factory=list)
    compare: list[float] = field(default_factory=list)
    back: list[float] = field(default_factory=list)
    open: list[float] = field(default_factory=list)
    ok_changes: int = 0
    errors: list[str] = field(default_factory=list)

    def merge(self, other: Stats) -> None:
        for name in ("change", "edit", "compare", "back", "open", "errors"):
            getattr(self, name).extend(getattr(other, name))
        self.ok_changes += other.ok_changes


class User:
    """One browser tab: opens Cluster, then makes input changes and checks Compare's numbers."""

    def __init__(self, base: str, nodes: list[int], think: float, seed: int, timeout: float):
        self.session = Session(base, timeout=timeout)
        self.nodes = nodes
        self.think = think
        self.rng = random.Random(seed)
        self.stats = Stats()
        self.failed = False

    async def _pause(self) -> None:
        if self.think > 0:
            await asyncio.sleep(self.think * self.rng.uniform(0.5, 1.5))

    def _error(self, what: str) -> None:
        self.stats.errors.append(what)
        self.failed = True

    async def open(self) -> None:
        try:
            run = await self.session.open("cluster", QUERY)
        except (ProtocolError, OSError) as exc:
            self._error(f"open: {exc}")
            return
        self.stats.open.append(run.seconds)
        if not run.ok or run.widget(NODES_KEY) is None:
            self._error(f"open: status {run.status}, errors {run.errors[:2]}, nodes input: "
                        f"{run.widget(NODES_KEY) is not None}")

    async def work(self) -> None:
        for n in self.nodes:
            if self.failed:
                return
            await self._pause()
            try:
                await self._change(n)
            except (ProtocolError, OSError) as exc:
                self._error(f"nodes={n}: {exc}")

    async def _change(self, n: int) -> None:
        s = self.session
        edit = await s.set_number(NODES_KEY, n)
        widget = edit.widget(NODES_KEY)
        if not edit.ok or widget is None or widget.number_input.default != n:
            shown = widget.number_input.default if widget is not None else None
            self._error(f"edit nodes={n}: status {edit.status}, errors {edit.errors[:2]}, shows {shown}")
            return
        compare = await s.goto("compare")
        label, want = expected(n)
        got = [value for lab, value in compare.metrics if lab.startswith(label)]
        if not compare.ok or got != want:
            self._error(f"compare nodes={n}: status {compare.status}, errors {compare.errors[:2]}, "
                        f"TCO cards {got} != {want}")
            return
        self.stats.edit.append(edit.seconds)
        self.stats.compare.append(compare.seconds)
        self.stats.change.append(edit.seconds + compare.seconds)
        self.stats.ok_changes += 1
        await self._pause()
        back = await s.goto("cluster")
        if not back.ok or back.widget(NODES_KEY) is None:
            self._error(f"back to cluster after nodes={n}: status {back.status}, errors {back.errors[:2]}")
            return
        self.stats.back.append(back.seconds)

    async def close(self) -> None:
        try:
            await self.session.close()
        except Exception as exc:  # closing must never hide the results
            self.stats.errors.append(f"close: {exc}")


# --- measurements of the replicas


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def cpu_s(pid: int) -> float:
    """User + system CPU time of a process [s]."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def replica_counters(base: str) -> tuple[int, int]:
    """(sessions connected, ``webui.compute.evaluate`` cache misses) so far, from ``/_stcore/metrics``."""
    with urllib.request.urlopen(base + "/_stcore/metrics", timeout=10) as r:
        text = r.read().decode()
    connects = misses = 0
    for line in text.splitlines():
        if line.startswith('session_events_total{type="connect"}'):
            connects = int(float(line.split()[-1]))
        elif line.startswith("cache_lookups_total") and '"webui.compute.evaluate"' in line and '"miss"' in line:
            misses = int(float(line.split()[-1]))
    return connects, misses


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0…1) of values, linear interpolation; NaN when empty."""
    if not values:
        return float("nan")
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


@dataclass
class Phase:
    name: str
    sessions: int
    stats: Stats
    seconds: float
    server_cpu: float
    client_cpu: float
    rss_before: list[int]
    rss_open: list[int]
    rss_after: list[int]
    planned: int
    routed: list[int]  # sessions per replica
    recomputes: list[int]  # model runs (evaluate cache misses) per replica

    @property
    def p50(self) -> float:
        return pct(self.stats.change, 0.50)

    @property
    def p95(self) -> float:
        return pct(self.stats.change, 0.95)

    @property
    def passed(self) -> bool:
        return not self.stats.errors and self.stats.ok_changes == self.planned


async def run_phase(name: str, base: str, sessions: int, changes: int, think: float, timeout: float,
                    apps: list, seed: int) -> Phase:
    """``sessions`` users open at once, then each makes ``changes`` changes, then all close."""
    users = [User(base, plan(changes), think, seed * 100_003 + i, timeout) for i in range(sessions)]
    pids = [app.proc.pid for app in apps]
    counters0 = [replica_counters(app.base) for app in apps]
    rss_before = [rss_kib(p) for p in pids]
    cpu0, client0, t0 = sum(cpu_s(p) for p in pids), time.process_time(), time.perf_counter()
    try:
        await asyncio.gather(*(u.open() for u in users))
        await asyncio.sleep(0.5)  # let the replicas settle after the first runs
        rss_open = [rss_kib(p) for p in pids]
        await asyncio.gather(*(u.work() for u in users))
        rss_after = [rss_kib(p) for p in pids]
    finally:
        await asyncio.gather(*(u.close() for u in users))
    seconds, server_cpu = time.perf_counter() - t0, sum(cpu_s(p) for p in pids) - cpu0
    client_cpu = time.process_time() - client0
    counters1 = [replica_counters(app.base) for app in apps]
    stats = Stats()
    for u in users:
        stats.merge(u.stats)
    return Phase(name, sessions, stats, seconds, server_cpu, client_cpu, rss_before, rss_open, rss_after,
                 sessions * changes, routed=[b[0] - a[0] for a, b in zip(counters0, counters1, strict=True)],
                 recomputes=[b[1] - a[1] for a, b in zip(counters0, counters1, strict=True)])


# --- output


def ms(x: float) -> str:
    return "—" if x != x else f"{1000 * x:.0f}"  # NaN → —


HEADER = (f"{'phase':<11}{'sess':>5}{'changes':>9}{'err':>4}{'p50 ms':>8}{'p95 ms':>8}{'p50 ×1':>8}{'p95 ×1':>8}"
          f"{'edit95':>8}{'cmp95':>7}{'back95':>8}{'CPU/chg':>9}")


def row(ph: Phase, single: Phase) -> str:
    """One line of the table: latencies [ms] of the changes, ratios to the single session."""
    s = ph.stats
    return (f"{ph.name:<11}{ph.sessions:>5}{f'{s.ok_changes}/{ph.planned}':>9}{len(s.errors):>4}"
            f"{ms(ph.p50):>8}{ms(ph.p95):>8}{ph.p50 / single.p50:>7.2f}×{ph.p95 / single.p95:>7.2f}×"
            f"{ms(pct(s.edit, .95)):>8}{ms(pct(s.compare, .95)):>7}{ms(pct(s.back, .95)):>8}"
            f"{ms(ph.server_cpu / max(s.ok_changes, 1)):>6} ms")


def print_errors(ph: Phase) -> None:
    for e in ph.stats.errors[:5]:
        print(f"    error ({ph.name}): {e}")
    if len(ph.stats.errors) > 5:
        print(f"    … {len(ph.stats.errors) - 5} more errors")


# --- main


async def bench(args, stack) -> int:
    apps = stack.apps
    for app in apps:  # scripts/serve.sh execs python: the Popen pid is the server itself
        cmd = Path(f"/proc/{app.proc.pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        assert "streamlit" in cmd, cmd
    base = stack.base
    t_start = time.perf_counter()
    print(f"stack: nginx {base} → {len(apps)} replicas (scripts/serve.sh, pids "
          f"{', '.join(str(a.proc.pid) for a in apps)}), PostgreSQL; {os.cpu_count()} CPUs")
    print(f"workload: /cluster?{QUERY}; a change = nodes on Cluster + open Compare (+ back to Cluster); "
          f"think {args.think:g} s × U(0.5, 1.5) before each change and before going back")

    # warm-up, straight to each replica: imports and first runs are not part of any measurement
    for app in apps:
        print_errors(await run_phase("warm-up", app.base, 1, 2, 0.0, args.timeout, apps, seed=0))

    # the baseline: one session alone (back to back: with no one else, think time changes nothing)
    single = await run_phase("single", base, 1, args.changes, 0.0, args.timeout, apps, seed=1)
    conc = await run_phase("concurrent", base, args.sessions, args.changes, args.think, args.timeout, apps, seed=2)
    print()
    print(HEADER)
    print(row(single, single))
    print(row(conc, single))
    print_errors(single)
    print_errors(conc)

    n = conc.sessions
    mib = 1 / 1024
    print(f"\nserver memory (VmRSS) of the {n} concurrent sessions, per replica: before → sessions open → "
          f"after {args.changes} changes each")
    for i, app in enumerate(apps):
        b, o, a, k = conc.rss_before[i], conc.rss_open[i], conc.rss_after[i], conc.routed[i]
        print(f"  replica{i} (port {app.port}): {k} sessions, {conc.recomputes[i]} model runs; "
              f"{b * mib:.0f} → {o * mib:.0f} → {a * mib:.0f} MiB")
    per_open = (sum(conc.rss_open) - sum(conc.rss_before)) / n * mib
    per_after = (sum(conc.rss_after) - sum(conc.rss_before)) / n * mib
    print(f"  per session: {per_open:.2f} MiB once opened, {per_after:.2f} MiB after {args.changes} changes "
          f"(both replicas: growth / {n})")
    print(f"  CPU: replicas {conc.server_cpu:.1f} s, load generator {conc.client_cpu:.1f} s, "
          f"in {conc.seconds:.0f} s wall")
    ok = single.passed and conc.passed
    r95 = conc.p95 / single.p95
    verdict = "every change completed and showed the right numbers, no error" if ok else "FAILED (see errors)"
    print(f"\n{n} sessions × {args.changes} changes: {verdict}; change p50 {ms(conc.p50)} ms "
          f"({conc.p50 / single.p50:.2f}× one session), p95 {ms(conc.p95)} ms ({r95:.2f}× one session; "
          f"target ≤ 3×: {'met' if r95 <= 3 else 'NOT met'})")

    # the ramp
    print(f"\nramp: +{args.ramp_step} sessions a step, {args.ramp_changes} changes each, until change p95 > "
          f"{P95_LIMIT:g} s, {args.ramp_cap} sessions or a {args.ramp_budget:g} s budget")
    print(HEADER)
    held, failed_at, last = 0, None, None
    ramp_start = time.perf_counter()
    sessions = args.ramp_step
    while sessions <= args.ramp_cap:
        if last is not None:  # would the next step overrun the budget?
            guess = last.seconds * (sessions / last.sessions if args.think == 0 else 1.2)
            if time.perf_counter() - ramp_start + guess > args.ramp_budget:
                print(f"(stopping: a {sessions}-session step would pass the {args.ramp_budget:g} s budget)")
                break
        ph = await run_phase(f"ramp {sessions}", base, sessions, args.ramp_changes, args.think, args.timeout,
                             apps, seed=1000 + sessions)
        print(row(ph, single))
        print_errors(ph)
        ok = ok and ph.passed
        last = ph
        if ph.p95 > P95_LIMIT or not ph.passed:
            failed_at = sessions
            break
        held = sessions
        sessions += args.ramp_step
    if failed_at:
        why = f"p95 is {ms(last.p95)} ms" + ("" if last.passed else f" and {len(last.stats.errors)} errors")
        print(f"\ntwo replicas hold {held} concurrent sessions with change p95 ≤ {P95_LIMIT:g} s "
              f"(think {args.think:g} s); at {failed_at} sessions {why}")
    else:
        print(f"\ntwo replicas hold at least {held} concurrent sessions with change p95 ≤ {P95_LIMIT:g} s "
              f"(think {args.think:g} s; the ramp stopped at its cap or budget first)")
    print(f"total bench time {time.perf_counter() - t_start:.0f} s")
    return 0 if ok else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a small run: 5 sessions × 3 changes, ramp 10, 20")
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--changes", type=int, default=10)
    ap.add_argument("--think", type=float, default=5.0, help="mean think time between interactions [s]")
    ap.add_argument("--ramp-step", type=int, default=50)
    ap.add_argument("--ramp-changes", type=int, default=3)
    ap.add_argument("--ramp-cap", type=int, default=400)
    ap.add_argument("--ramp-budget", type=float, default=900.0, help="[s]")
    ap.add_argument("--timeout", type=float, default=30.0, help="per script run [s]")
    args = ap.parse_args()
    if args.quick:
        args.sessions, args.changes, args.think = 5, 3, min(args.think, 0.5)
        args.ramp_step, args.ramp_changes, args.ramp_cap, args.ramp_budget = 10, 2, 20, 60.0

    from pg import PgServer
    from stack import NGINX, NGINX_PORT, Stack, port_free

    if not Path(NGINX).exists():
        print(f"nginx not found ({NGINX}): install Debian's nginx", file=sys.stderr)
        return 2
    if not port_free(NGINX_PORT):
        print(f"port {NGINX_PORT} (deploy/nginx.conf's listen port) is in use", file=sys.stderr)
        return 2

    work = Path(tempfile.mkdtemp(prefix="fabric-tco-loadbench-", dir="/tmp"))
    pg = stack = None
    try:
        pg = PgServer(work)
        pg.start()
        users_file = work / "users.json"  # no accounts: every session is a public customer
        # Stack.__init__ starts the replicas, then nginx: keep a handle even if it fails halfway
        stack = Stack.__new__(Stack)
        Stack.__init__(stack, pg.new_database(), users_file, replicas=2, listen=NGINX_PORT)
        return asyncio.run(bench(args, stack))
    finally:
        if stack is not None:
            if getattr(stack, "nginx", None) is not None:
                stack.nginx.stop()
            for app in getattr(stack, "apps", []):
                app.stop()
        if pg is not None:
            pg.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
