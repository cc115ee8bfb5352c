"""``python -m store``: accounts and migrations.

    python -m store add-user alice            # asks for the password twice
    printf '%s\\n' "$PW" | python -m store add-user alice --password-stdin
    python -m store list-users | remove-user alice
    python -m store migrate                    # DATABASE_URL or FABRIC_TCO_DB
"""

from __future__ import annotations

import argparse
import getpass
import re
import sys
from pathlib import Path

import sqlalchemy as sa
from alembic.util import CommandError
from sqlalchemy.engine import make_url

from . import accounts, config, migrate
from .engine import make_engine
from .errors import StoreError


def _password(args) -> str:
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("password: ")
    if getpass.getpass("again: ") != first:
        raise StoreError("the two passwords differ")
    return first


def _reason(exc: BaseException, password: str | None) -> str:
    """The first line of the driver's message (the error itself, not SQLAlchemy's wrapping), password masked."""
    orig = getattr(exc, "orig", None) or exc
    lines = [ln.strip() for ln in str(orig).splitlines() if ln.strip()] or [type(orig).__name__]
    if not password:
        return lines[0]
    return re.sub(rf"(?<![\w]){re.escape(password)}(?![\w])", "***", lines[0])


def _migrate(url: str) -> int:
    """Migrate the database at ``url``; one line on stderr and status 2 when it cannot be opened."""
    try:
        parsed = make_url(url)
    except (sa.exc.ArgumentError, ValueError):  # the raw string may hold a password: never echo it
        print(f"error: ${config.ENV_DATABASE_URL} is not a database URL "
              "(expected postgresql://user:password@host:port/name)", file=sys.stderr)
        return 2
    shown = parsed.render_as_string(hide_password=True)
    try:
        engine = make_engine(url)
        migrate.upgrade(engine)
        revision = migrate.current_revision(engine)
    except (sa.exc.SQLAlchemyError, CommandError, OSError, ImportError, StoreError) as exc:
        print(f"error: cannot open the database {shown}: {_reason(exc, parsed.password)}", file=sys.stderr)
        return 2
    print(f"schema at revision {revision} ({shown})")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status (2 with one line on stderr for a refused request)."""
    ap = argparse.ArgumentParser(prog="python -m store", description=__doc__.splitlines()[0])
    ap.add_argument("--users-file", help=f"accounts file (default ${config.ENV_USERS_FILE} or "
                                         f"{config.DEFAULT_USERS_FILE})")
    sub = ap.add_subparsers(dest="cmd", required=True)
    add = sub.add_parser("add-user", help="add a sales account (argon2id hash)")
    add.add_argument("name")
    add.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    add.add_argument("--replace", action="store_true", help="set a new password for an existing user")
    rm = sub.add_parser("remove-user", help="remove a sales account")
    rm.add_argument("name")
    sub.add_parser("list-users", help="list the sales accounts")
    sub.add_parser("migrate", help="create or upgrade the database schema")
    args = ap.parse_args(argv)
    path = Path(args.users_file) if args.users_file else config.users_file()
    try:
        if args.cmd == "add-user":
            accounts.add_user(path, args.name, _password(args), replace=args.replace)
            print(f"user {args.name} saved in {path}")
        elif args.cmd == "remove-user":
            accounts.remove_user(path, args.name)
            print(f"user {args.name} removed from {path}")
        elif args.cmd == "list-users":
            print("\n".join(accounts.list_users(path)))
        else:
            return _migrate(config.database_url())
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
