"""The store's settings from ``store/policy.yaml`` (numbers live in the data file, not in code)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import yaml

from .throttle import Backoff

POLICY_FILE = Path(__file__).with_name("policy.yaml")


@dataclass(frozen=True)
class Policy:
    """Login throttle [count, s, rows], share-token size [bytes] and SQLite busy timeout [ms]."""

    max_name_failures: int
    max_client_failures: int
    pair_backoff: Backoff
    max_parallel_checks: int
    login_window_s: float
    prune_batch_rows: int
    share_token_bytes: int
    sqlite_busy_timeout_ms: int


@functools.cache
def policy() -> Policy:
    """Read ``policy.yaml`` once."""
    raw = yaml.load(POLICY_FILE.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    pair = raw["login_throttle"]["per_name_and_client"]
    return Policy(
        max_name_failures=int(raw["login_throttle"]["max_failures_per_name"]),
        max_client_failures=int(raw["login_throttle"]["max_failures_per_client"]),
        pair_backoff=Backoff(int(pair["free_failures"]), float(pair["first_delay_s"]), float(pair["max_delay_s"])),
        max_parallel_checks=int(raw["login_throttle"]["max_parallel_checks"]),
        login_window_s=float(raw["login_throttle"]["window_s"]),
        prune_batch_rows=int(raw["login_throttle"]["prune_batch_rows"]),
        share_token_bytes=int(raw["share_token"]["bytes"]),
        sqlite_busy_timeout_ms=int(raw["database"]["sqlite_busy_timeout_ms"]),
    )
