"""When more nodes make a run slower: each fabric's run on the scenario's cluster against its run on
the smaller cluster the equal-work sizing found (:mod:`costmodel.pipeline.equal_work`), and why.

A run on more nodes computes less per GPU each step, but its collectives span more nodes; on a slow
network the extra communication can outweigh the saved compute (the run is communication-bound).
Failing that, a larger cluster is interrupted more often and loses more time to restarts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from costmodel.pipeline.equal_work import STEP_KEYS
from costmodel.pipeline.results import Result

#: a run this much longer (relative) on the larger cluster is reported [fraction]
REPORTED_SLOWDOWN = 0.01


@dataclass(frozen=True)
class Slowdown:
    """One fabric whose run is slower on the scenario's ``big_nodes`` than on ``small_nodes``.

    ``small`` / ``big``: the step on each cluster (:data:`costmodel.pipeline.equal_work.STEP_KEYS`: step,
    compute and exposed network time [s], interruptions [per year]); ``cause`` is
    ``"communication"`` when the step itself got longer (the network time grew by more than the
    compute shrank), else ``"interruptions"``.
    """

    fabric: str
    small_nodes: int  # [count]
    big_nodes: int  # [count]
    small_days: float  # one run [days]
    big_days: float  # one run [days]
    small: dict[str, float]
    big: dict[str, float]
    cause: str

    @property
    def comm_share_big(self) -> float:
        """Share of the larger cluster's step spent waiting for the network [0-1]."""
        return self.big["exposed_comm_s"] / self.big["step_time_s"] if self.big["step_time_s"] > 0 else math.nan


def slower_with_more_nodes(res: Result, min_slowdown: float = REPORTED_SLOWDOWN) -> list[Slowdown]:
    """The fabrics (in the result's order) whose run takes longer on the scenario's nodes than on the
    fewer nodes the equal-work sizing gives them, by more than ``min_slowdown``."""
    ew = res.equal_work
    if ew is None or not ew.step:
        return []
    out = []
    for j, fid in enumerate(ew.fabric_ids):
        f = res.fabric(fid)
        small_days, big_days = float(ew.run_days[j]), float(f.metrics["run_days"])
        if not (ew.feasible[j] and int(ew.nodes[j]) < res.nodes and math.isfinite(small_days)
                and math.isfinite(big_days) and big_days > small_days * (1.0 + min_slowdown)):
            continue
        small = {k: float(ew.step[k][j]) for k in STEP_KEYS}
        big = {k: float(f.metrics[k]) for k in STEP_KEYS}
        cause = "communication" if big["step_time_s"] > small["step_time_s"] else "interruptions"
        out.append(Slowdown(fid, int(ew.nodes[j]), int(res.nodes), small_days, big_days, small, big, cause))
    return out


__all__ = ["REPORTED_SLOWDOWN", "Slowdown", "slower_with_more_nodes"]
