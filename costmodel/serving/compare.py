"""The equal-SLA comparison: every fabric sized for the same demand and SLA (as equal work does for
training), each against a baseline fabric."""

from __future__ import annotations

import numpy as np


def equal_sla(answers: dict[str, np.ndarray], baseline: int = 0) -> dict[str, np.ndarray]:
    """Each fabric (last axis) against fabric ``baseline``: servers more [count], cost per million tokens
    and per hour as ratios [×] and differences [currency/Mtok, currency/h]; NaN where either side cannot
    meet the SLA. ``answers``: :func:`costmodel.serving.sizing.serve`'s.

    >>> r = equal_sla({"servers": np.array([4.0, 2.0]), "cost_per_mtok": np.array([2.0, 1.5]),
    ...                "cost_per_hour": np.array([40.0, 30.0])})
    >>> r["servers_delta"].tolist(), r["cost_per_mtok_ratio"].tolist()
    ([0.0, -2.0], [1.0, 0.75])
    """
    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for key in ("servers", "cost_per_mtok", "cost_per_hour"):
            v = np.asarray(answers[key], dtype=float)
            base = v[..., baseline:baseline + 1]
            both = np.isfinite(v) & np.isfinite(base)
            out[f"{key}_delta"] = np.where(both, v - base, np.nan)
            if key != "servers":
                out[f"{key}_ratio"] = np.where(both, v / base, np.nan)
    return out


__all__ = ["equal_sla"]
