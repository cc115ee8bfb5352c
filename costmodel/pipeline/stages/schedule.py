"""Stage 4, schedule: run length, busy hours and what a year of failures costs in time."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costmodel.pipeline.inputs import Inputs
from costmodel.pipeline.stages.reliability import SECONDS_PER_HOUR, Reliability
from costmodel.pipeline.stages.step_time import StepTime

HOURS_PER_YEAR = 8760.0


@dataclass(frozen=True)
class Schedule:
    """The year's plan, each ``(S, F)``."""

    run_hours: np.ndarray  # wall time of one run [h]
    required_hours: np.ndarray  # hours the plan asks for per year [h]
    busy_hours: np.ndarray  # hours the cluster trains per year [h]
    runs_per_year: np.ndarray  # [1/year]
    fits: np.ndarray  # the plan fits in a year [bool]
    interruptions_per_year: np.ndarray  # [1/year]
    lost_hours: np.ndarray  # cluster-hours lost to failures per year [h]
    network_lost_hours: np.ndarray  # of which the network's [h]


def schedule(p: Inputs, step: StepTime, rel: Reliability, kind: str | np.ndarray) -> Schedule:
    """Hours per run and per year, and the interruptions and lost hours they bring.

    Parameters
    ----------
    p : Inputs
        Broadcast inputs: ``tokens_per_run``, ``batch_tokens`` [tokens], ``runs_per_year``.
    step, rel : StepTime, Reliability
        Read ``t_step`` [s]; ``goodput``, ``failure_loss``, rates [1/h] and ``net_share``.
    kind : str or ndarray
        ``plan`` (the runs per year asked for) or ``always_busy`` (a full year); or a boolean array
        broadcasting to ``(S, F)``, True where a row is always busy (see :class:`costmodel.pipeline.tco.Modes`).

    Returns
    -------
    Schedule

    Notes
    -----
    ``T_run = tokens / batch · T_step / 3600 / goodput + setup`` [h] (setup: the fabric's hours
    per run before productive training); required ``= runs · T_run`` (or
    8760 h); busy ``= min(required, 8760)``; runs per year ``= busy / T_run``; interruptions
    ``= Λ · busy``; lost hours ``= busy · failure loss`` (network's: × its share of ``Λ``).

    References
    ----------
    .. [1] A. Dubey et al., "The Llama 3 Herd of Models", arXiv:2407.21783, 2024, Table 5
       (interruptions of a 54-day run, 419 in all, 42 of them the network's).
    """
    run_hours = (p.tokens_per_run / p.batch_tokens * step.t_step / SECONDS_PER_HOUR / rel.goodput
                 + rel.setup_s / SECONDS_PER_HOUR)  # setup and debugging before productive training
    all_year = (kind == "always_busy") if isinstance(kind, str) else np.asarray(kind, dtype=bool)
    required = np.where(all_year, HOURS_PER_YEAR, p.runs_per_year * run_hours)
    busy_h = np.minimum(required, HOURS_PER_YEAR)
    lost_hours = busy_h * rel.failure_loss
    return Schedule(
        run_hours=run_hours, required_hours=required, busy_hours=busy_h,
        runs_per_year=busy_h / run_hours, fits=required <= HOURS_PER_YEAR * (1.0 + 1e-12),
        interruptions_per_year=rel.rate_total * busy_h, lost_hours=lost_hours,
        network_lost_hours=lost_hours * rel.net_share,
    )
