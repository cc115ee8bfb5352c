"""What serving costs: the fleet's cost per hour and per million input and output tokens, per fabric.

The price of a server-hour is the training model's (``cost_per_cluster_hour`` of
:mod:`costmodel.money.unit_cost` over the scenario's servers: the horizon's cash cost with the
cluster busy every hour), never a second cost model. The fleet is sized for the peak demand and
serves the average one; the GPU time of prefill and of decode divides the cost between input and
output tokens (``prefill_share``). The formulas are :class:`~costmodel.money.formula.Expr` so the
workbook can print them as live formulas (:data:`STEPS`).

Names the formulas read: ``servers`` [count], ``cost_per_server_hour`` [currency/h], ``fabric_share``
[0-1], ``prefill_share`` [0-1], ``avg_rps`` [requests/s], ``prompt``, ``output`` [tokens],
``instance_servers`` [count], ``roles`` (1 colocated, 2 disaggregated) [count].
"""

from __future__ import annotations

import numpy as np

from costmodel.money.formula import Expr, Name
from costmodel.money.unit_cost import MEGA

SECONDS_PER_HOUR = 3600.0  # a unit conversion

_n = Name

#: each figure by name, in order; a formula may read the figures before it
STEPS: dict[str, Expr] = {
    "cost_per_hour": _n("servers") * _n("cost_per_server_hour"),
    "idle_cost_per_hour": _n("roles") * _n("instance_servers") * _n("cost_per_server_hour"),
    "input_tokens_per_hour": _n("avg_rps") * SECONDS_PER_HOUR * _n("prompt"),
    "output_tokens_per_hour": _n("avg_rps") * SECONDS_PER_HOUR * _n("output"),
    "cost_per_mtok": _n("cost_per_hour") / ((_n("input_tokens_per_hour") + _n("output_tokens_per_hour")) / MEGA),
    "cost_per_mtok_input": _n("cost_per_hour") * _n("prefill_share") / (_n("input_tokens_per_hour") / MEGA),
    "cost_per_mtok_output": _n("cost_per_hour") * (1.0 - _n("prefill_share")) / (_n("output_tokens_per_hour") / MEGA),
    "fabric_cost_per_hour": _n("cost_per_hour") * _n("fabric_share"),
    "fabric_cost_per_mtok": _n("cost_per_mtok") * _n("fabric_share"),
}
#: the figures the serving model reports
FIGURES: tuple[str, ...] = ("cost_per_hour", "idle_cost_per_hour", "cost_per_mtok", "cost_per_mtok_input",
                            "cost_per_mtok_output", "fabric_cost_per_hour", "fabric_cost_per_mtok")


def costs(x, answers: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every figure of :data:`FIGURES` for inputs ``x`` (:class:`~costmodel.serving.inputs.ServingInputs`)
    and the sizing ``answers`` (``servers``, ``prefill_share``, ``instance_servers``, ``disaggregated``);
    ∞ where the SLA is unreachable or no tokens are served.

    >>> import types
    >>> x = types.SimpleNamespace(cost_per_server_hour=10.0, fabric_share=0.1, avg_rps=1.0, prompt=900.0,
    ...                           output=100.0)
    >>> a = {"servers": 2.0, "prefill_share": 0.5, "instance_servers": 1.0, "disaggregated": False}
    >>> {k: round(float(v), 3) for k, v in costs(x, a).items() if k in ("cost_per_hour", "cost_per_mtok")}
    {'cost_per_hour': 20.0, 'cost_per_mtok': 5.556}
    """
    env = {"servers": answers["servers"], "cost_per_server_hour": x.cost_per_server_hour,
           "fabric_share": x.fabric_share, "prefill_share": answers["prefill_share"], "avg_rps": x.avg_rps,
           "prompt": x.prompt, "output": x.output, "instance_servers": answers["instance_servers"],
           "roles": np.where(answers["disaggregated"], 2.0, 1.0)}
    out = {}
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for key, formula in STEPS.items():
            out[key] = env[key] = np.asarray(formula.evaluate(env), dtype=float)
    unreachable = ~np.isfinite(np.asarray(answers["servers"], dtype=float))
    return {k: np.where(unreachable | np.isnan(out[k]), np.inf, out[k]) for k in FIGURES}


__all__ = ["FIGURES", "STEPS", "costs"]
