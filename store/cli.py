"""``python -m store``: accounts and migrations.

    python -m store add-user alice            # asks for the password twice
    printf '%s\\n' "$PW" | python -m store add-user alice --password-stdin
    python -m store list-users | remove-user alice
    python -m store migrate                    # DATABASE_URL or FABRIC_TCO_DB
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path

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
            engine = make_engine(config.database_url())
            migrate.upgrade(engine)
            print(f"schema at revision {migrate.current_revision(engine)} ({engine.url.render_as_string()})")
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
