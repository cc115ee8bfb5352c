"""The sign-in throttle's rules: which counters an attempt touches and how long each makes it wait.

Three counters per attempt, all in the store (shared by replicas), each over the policy's window:

* ``pair:<name>|<address>`` — one client address guessing one name: a few free failures, then
  growing delays (doubling up to a cap). This is the lockout a person can trigger, and it only
  ever holds back that address: the owner signing in from another address never waits for it.
* ``ip:<address>`` — one address across names (password spraying): a hard cap per window.
* ``user:<name>`` — one name across all addresses (a distributed guess): a hard ceiling set well
  above what one address can reach under its own delays, so a single anonymous visitor cannot
  lock the owner out; only many addresses together can (docs/deploy.md, Security).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Backoff:
    """Growing delays: after ``free`` failures within the window, the next attempt waits
    ``first_s * 2 ** (failures - free)`` seconds after the last failure, at most ``max_s``."""

    free: int
    first_s: float
    max_s: float

    def delay_s(self, failures: int) -> float:
        """Seconds to wait after the last of ``failures`` failures (0 while free)."""
        if failures < self.free:
            return 0.0
        return min(self.max_s, self.first_s * 2.0 ** min(failures - self.free, 60))


Rule = int | Backoff  # an int is a hard cap: that many failures within the window block the key


def wait_s(rule: Rule, times: list[float], now: float, window_s: float) -> float:
    """Seconds until the key may try again, given its failure times within the window, newest first."""
    if isinstance(rule, Backoff):
        return max(0.0, times[0] + rule.delay_s(len(times)) - now) if times else 0.0
    return 0.0 if len(times) < rule else max(0.0, times[rule - 1] + window_s - now)


def rows_needed(rule: Rule) -> int:
    """How many of the newest failure rows decide the rule's wait (bounds the query)."""
    if isinstance(rule, Backoff):
        doublings = 0
        while rule.first_s * 2.0 ** doublings < rule.max_s and doublings < 60:
            doublings += 1
        return rule.free + doublings + 1
    return rule


def keys_for(name: str, client: str, pair: Backoff, per_client: int, per_name: int) -> tuple[dict[str, Rule], str]:
    """The counters of one attempt on ``name`` from ``client`` ('' when the address is unknown) and
    the key a successful sign-in clears (the pair's: the owner's own delays)."""
    pair_key = f"pair:{name}|{client}"
    keys: dict[str, Rule] = {f"user:{name}": per_name, pair_key: pair}
    if client:
        keys[f"ip:{client}"] = per_client
    return keys, pair_key
