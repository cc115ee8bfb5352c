"""Loopback ports for the servers the tests start, one range per pytest-xdist worker.

``bind(0)`` hands out ports from the kernel's shared ephemeral range, so two workers could be given
the same port between its check and the server's own bind. Each worker instead counts through a
range of its own below the ephemeral range (``PORTS_PER_WORKER`` ports from ``FIRST_PORT`` on for
gw0, the next range for gw1, ...), skipping any port that something else already holds.
"""

from __future__ import annotations

import itertools
import os
import socket

FIRST_PORT = 20_000  # below Linux's ephemeral range (32768-60999): outgoing connections never take these
PORTS_PER_WORKER = 500


def worker_index() -> int:
    """This process's pytest-xdist worker number (``gw3`` → 3); 0 without xdist."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else 0


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


_start = FIRST_PORT + PORTS_PER_WORKER * worker_index()
_next = itertools.cycle(range(_start, _start + PORTS_PER_WORKER))


def free_port() -> int:
    """A free TCP port on loopback from this worker's range, never handed out twice in a row."""
    for _ in range(PORTS_PER_WORKER):
        port = next(_next)
        if _bindable(port):
            return port
    raise RuntimeError(f"no free loopback port in {_start}-{_start + PORTS_PER_WORKER - 1}")
