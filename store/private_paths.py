"""Private places for the store's files: missing directories made 0700 whatever the umask, and a
refusal to keep the database or the accounts file where another local user could replace them.

A directory lets others swap what is in it when it is group- or world-writable without the sticky
bit (``/tmp`` and the image's ``/app/var`` are 1777: others may add entries but not rename or remove
ours), or when it belongs to another user than us or root.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import StoreError

PRIVATE_DIR = 0o700


def make_parents(path: Path) -> None:
    """Create every missing directory above ``path`` with mode 0700 (the umask cannot widen it)."""
    missing = []
    parent = Path(path).absolute().parent
    while not parent.exists() and parent != parent.parent:
        missing.append(parent)
        parent = parent.parent
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=PRIVATE_DIR)
        except FileExistsError:
            continue  # made meanwhile by someone else: check_parents judges it
        os.chmod(directory, PRIVATE_DIR)


def _unsafe(directory: Path) -> str | None:
    """Why others could replace entries of ``directory`` (None when they cannot)."""
    st = directory.stat()
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o022 and not mode & stat.S_ISVTX:
        return f"is {'world' if mode & 0o002 else 'group'}-writable (mode {mode:04o})"
    if st.st_uid not in (0, os.getuid()):
        return f"belongs to another user (uid {st.st_uid})"
    return None


def check_parents(path: Path, what: str) -> None:
    """Raise StoreError naming ``what`` and the directory when a directory above ``path`` (as
    written and with links resolved) would let another user replace the file."""
    path = Path(path).absolute()
    chain = [*path.parents, *Path(os.path.realpath(path.parent)).parents, Path(os.path.realpath(path.parent))]
    for directory in dict.fromkeys(chain):
        if not directory.exists():
            continue
        why = _unsafe(directory)
        if why:
            raise StoreError(f"{what} {path}: the directory {directory} {why}, so another user could replace "
                             f"the file; allowed: directories writable by their owner only (chmod go-w {directory}) "
                             "or sticky like /tmp, owned by you or root")


def check_owner(path: Path, what: str) -> None:
    """Raise StoreError when ``path`` exists and belongs to another user (planted before we made it)."""
    try:
        uid = Path(path).stat().st_uid
    except FileNotFoundError:
        return
    if uid != os.getuid():
        raise StoreError(f"{what} {path} belongs to another user (uid {uid}); allowed: a file you own")


def prepare(path: Path, what: str) -> None:
    """Refuse an unsafe place for ``path`` before making anything there, make the missing
    directories 0700, and check again (a directory someone else made meanwhile is judged too)."""
    check_parents(path, what)
    make_parents(path)
    check_parents(path, what)
