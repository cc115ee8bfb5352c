"""Why a fabric cannot run the yearly plan, in words a customer can check.

A share of the year far above 100 % ("需要占用全年的 49453149117%") reads as a bug; when the job fails
more often than it restarts, say so with the two durations and the share of useful work left.
"""

from __future__ import annotations

from collections.abc import Mapping

from webui.i18n.translator import Translator

_LOAD_AS_TIMES = 10.0  # from 10 years' worth of hours per year on, the load is written as a multiple
_GOODPUT_FLOOR = 1e-4  # shares of useful work below 0.01 % are written as "below 0.01 %"


def duration(t: Translator, hours: float) -> str:
    """A failure interval or a restart in minutes below an hour, else in hours (one decimal)."""
    if hours < 1.0:
        return t("fit.minutes", n=f"{hours * 60:.1f}")
    return t("fit.hours", n=f"{hours:,.1f}")


def _share(t: Translator, x: float) -> str:
    """The share of useful work: ``3.2%``, or "below 0.01 %" for the vanishing ones."""
    return t("fit.below", pct=f"{_GOODPUT_FLOOR:.2%}") if x < _GOODPUT_FLOOR else f"{x:.2%}"


def no_fit_text(t: Translator, fabric: str, metrics: Mapping[str, float], nodes: int) -> str:
    """The warning for a fabric that cannot fit the yearly plan (``metrics``: the fabric's result
    metrics: ``mtbf_hours`` and ``restart_hours`` [h], ``goodput`` and ``plan_load`` [0-1])."""
    mtbf, restart = float(metrics["mtbf_hours"]), float(metrics.get("restart_hours", 0.0))
    load = float(metrics["plan_load"])
    if restart > 0 and mtbf < restart:
        return t("fit.fails_faster", fabric=fabric, nodes=f"{nodes:,}", mtbf=duration(t, mtbf),
                 restart=duration(t, restart), goodput=_share(t, float(metrics["goodput"])))
    if load >= _LOAD_AS_TIMES:
        return t("fit.times", fabric=fabric, times=f"{load:,.0f}")
    return t("compare.no_fit", fabric=fabric, load=f"{load:.0%}")
