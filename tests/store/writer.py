"""A store writer run as a subprocess by ``test_durability.py``: saves scenario versions in a loop.

    python tests/store/writer.py URL crash SCENARIO_ID [--gate]
        save versions of SCENARIO_ID forever (until killed)
    python tests/store/writer.py URL run SECONDS SCENARIO_ID [--gate]
        create an own scenario, then for SECONDS alternately save a version of the shared
        SCENARIO_ID and of the own scenario; exit 0

After each save has returned (the commit is done) one line is written to stdout with a
single ``write(2)`` (atomic on a pipe, so a kill never leaves half a line)::

    ok <scenario_id> <version> <sha256>

``--gate``: open the store, print ``ready`` and wait for a line on stdin before saving, so
the test can start the (slow) interpreter early and release writers at the same moment.
Every scenario belongs to :data:`OWNER`. Documents differ from
save to save (nodes, name, catalog overrides) and are a few kB, so a kill often lands mid-write.
"""

from __future__ import annotations

import os
import sys
import time

from costmodel.scenario.schema import FABRIC_OVERRIDE_BOUNDS, Scenario
from store import open_store

OWNER = "local:durability"
FABRICS = ("tcp-100", "roce-200", "iwarp-100", "ib-ndr-400")  # the blank scenario's fabrics


def scenario(counter: int, tag: str) -> Scenario:
    """The ``counter``-th document of writer ``tag``: 200-char name, nodes and overrides vary with it."""
    name = f"{tag} save {counter} " + "x" * 200
    overrides = {
        fab: {field: lo + (hi - lo) * ((counter * (i + 1) + j) % 997) / 997
              for j, (field, (lo, hi)) in enumerate(FABRIC_OVERRIDE_BOUNDS.items())}
        for i, fab in enumerate(FABRICS)
    }
    return Scenario(name=name[:200], cluster={"nodes": counter % 100_000 + 1}, fabrics=list(FABRICS),
                    overrides={"fabrics": overrides})


def _report(info) -> None:
    os.write(1, f"ok {info.scenario_id} {info.version} {info.sha256}\n".encode())


USAGE = "usage: writer.py URL crash SCENARIO_ID [--gate] | writer.py URL run SECONDS SCENARIO_ID [--gate]"


def main(argv: list[str]) -> int:
    gate = "--gate" in argv
    args = [a for a in argv if a != "--gate"]
    if len(args) == 3 and args[1] == "crash":
        url, mode, shared = args
        seconds = 0.0
    elif len(args) == 4 and args[1] == "run":
        url, mode, seconds_arg, shared = args
        seconds = float(seconds_arg)
    else:
        print(USAGE, file=sys.stderr)
        return 2

    db = open_store(url)
    tag = f"pid {os.getpid()}"
    if gate:
        os.write(1, b"ready\n")
        if not sys.stdin.readline():
            return 3  # the test went away
    counter = 0
    if mode == "crash":
        while True:
            counter += 1
            _report(db.save_scenario(OWNER, scenario(counter, tag), shared, note=f"crash {counter}"))
    own = db.save_scenario(OWNER, scenario(0, tag), note="own scenario")
    _report(own)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        counter += 1
        target = shared if counter % 2 else own.scenario_id
        _report(db.save_scenario(OWNER, scenario(counter, tag), target, note=f"run {counter}"))
    db.engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
