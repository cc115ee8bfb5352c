"""Figures of the built image for docs/deploy.md: size, start to healthy, memory idle and with N sessions.

    .venv/bin/python scripts/image/measure.py [--image localhost/fabric-tco:test] [--sessions 20]

Runs one container as deploy/docker-compose.yml runs it (tests/image/containers.py), on the SQLite
fallback, published on a loopback port. "Sessions" are Streamlit websocket sessions of
bench/st_client.py, each opening Compare in English and USD (the full model run and charts), all
kept open while the memory is read. Memory is the container's cgroup usage as ``podman stats``
reports it (MiB). Prints one line per figure.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "image"), str(ROOT / "bench"), str(ROOT)]

from browser_helpers import free_port  # noqa: E402
from containers import TAG, Container, compose_run_args, podman  # noqa: E402
from st_client import Session  # noqa: E402


async def open_sessions(base: str, n: int) -> tuple[list[Session], float]:
    """``n`` sessions, opened one after another (each until Compare has rendered); seconds taken."""
    sessions, start = [], time.monotonic()
    for _ in range(n):
        s = Session(base, timeout=120)
        run = await s.open("", "lang=en&cur=USD")
        if not run.ok:
            raise SystemExit(f"a session failed: {run.errors[:2]}")
        sessions.append(s)
    return sessions, time.monotonic() - start


def rss_mib(c: Container) -> float:
    """The resident memory of every process in the container (VmRSS summed; shared pages counted
    once per process), MiB — beside the cgroup figure, which also counts the page cache."""
    out = c.exec("sh", "-c", "cat /proc/[0-9]*/status 2>/dev/null").stdout.decode()
    return sum(int(line.split()[1]) for line in out.splitlines() if line.startswith("VmRSS:")) / 1024


async def measure(args) -> None:
    size = int(podman("image", "inspect", "--format", "{{.Size}}", args.image).stdout)
    print(f"image size: {size / 1e6:.0f} MB ({size / 2**20:.0f} MiB)")
    port = free_port()
    c = Container(args.image, f"fabric-tco-measure-{port}", [*compose_run_args(False), "-p", f"127.0.0.1:{port}:8501"])
    try:
        print(f"start to healthy: {c.wait_healthy():.1f} s")
        await asyncio.sleep(args.settle)
        print(f"memory idle ({args.settle:.0f} s after healthy): {c.memory_mib():.0f} MiB cgroup, "
              f"{rss_mib(c):.0f} MiB RSS")
        sessions, took = await open_sessions(f"http://127.0.0.1:{port}", args.sessions)
        await asyncio.sleep(2)
        print(f"memory with {args.sessions} open sessions on Compare: {c.memory_mib():.0f} MiB cgroup, "
              f"{rss_mib(c):.0f} MiB RSS (opened in {took:.1f} s)")
        for s in sessions:
            await s.close()
    finally:
        c.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--image", default=TAG)
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--settle", type=float, default=20.0, help="seconds to wait after healthy before the idle reading")
    asyncio.run(measure(ap.parse_args()))


if __name__ == "__main__":
    main()
