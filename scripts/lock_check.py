"""Check that a lock file still covers its requirements file: every requirement (and those of the
files it includes with ``-r``) is pinned in the lock at a version the requirement allows.

    python scripts/lock_check.py requirements.txt requirements.lock

Exit 0 when it does; 1 with one line per problem naming the package and ``make lock`` otherwise.
Run by ``make`` after installing from the lock, and by tests/image/test_lock.py.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", re.M)


def requirements(path: Path) -> list[tuple[Requirement, Path]]:
    """(requirement, file it is in) of ``path`` and of the files it includes with ``-r``."""
    found: list[tuple[Requirement, Path]] = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split(" #")[0].strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(("-r ", "--requirement ")):
            found += requirements(path.parent / line.split(maxsplit=1)[1])
        elif not line.startswith("-"):
            found.append((Requirement(line), path))
    return found


def pins(lock: Path) -> dict[str, str]:
    """{canonical name: version} of the ``name==version`` lines of a lock file."""
    return {canonicalize_name(n): v for n, v in PIN.findall(lock.read_text(encoding="utf-8"))}


def problems(req_file: Path, lock: Path) -> list[str]:
    """What the lock is missing for ``req_file``; empty when it covers it."""
    pinned = pins(lock)
    out = []
    for req, source in requirements(req_file):
        name = canonicalize_name(req.name)
        if name not in pinned:
            out.append(f"{req.name}: in {source.name} but not in {lock.name}; run `make lock`")
        elif not req.specifier.contains(pinned[name], prereleases=True):
            out.append(f"{req.name}: {lock.name} pins {pinned[name]}, outside {source.name}'s "
                       f"'{req.specifier}'; run `make lock`")
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: lock_check.py REQUIREMENTS_FILE LOCK_FILE", file=sys.stderr)
        return 2
    found = problems(Path(argv[0]), Path(argv[1]))
    for line in found:
        print(f"error: {line}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
