"""The serving answers of a scenario: its ``serving`` section on its part, fabrics and prices, one row
per fabric (in the scenario's fabric order), for the Serving page and the exports.

:func:`serving_answers` runs :func:`~costmodel.serving.sizing.serve` once on
:func:`scenario_inputs` and reads each fabric's column; :func:`latency_curve` gives the TPOT of an
instance against its batch, and :func:`demand_curve` the servers and tokens/s per GPU against the
demand, for the page's chart. Units: seconds, requests/s, tokens, servers, GPUs, currency.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costmodel.api import evaluate
from costmodel.catalog.loader import Catalog, load_catalog
from costmodel.money.unit_cost import HOURS_PER_YEAR
from costmodel.scenario.schema import Scenario
from costmodel.serving import physics
from costmodel.serving.compare import equal_sla
from costmodel.serving.from_scenario import serving_inputs
from costmodel.serving.inputs import ServingInputs
from costmodel.serving.sizing import decode_step_s, instance_gpus, prefill_s, serve

#: why a fabric misses the SLA: its fastest decode step (batch 1) is slower than the TPOT target, or
#: its prefill (plus the KV transfer when disaggregated) is slower than the TTFT target
REASONS = ("tpot_floor", "ttft_floor")


@dataclass(frozen=True)
class FabricServing:
    """One fabric's serving answer. ``servers``, ``gpus`` and the costs are ∞ and the achieved TPOT,
    batch and tokens/s NaN where the SLA cannot be met (``sla_met`` False, ``reason`` says why)."""

    fabric: str
    servers: float  # servers that meet the peak demand under the SLA [count]
    gpus: float  # their GPUs [count]
    instance_servers: float  # servers of one model instance [count]
    batch: float  # sequences one decode instance runs at its operating point [count]
    ttft_s: float  # achieved time to first token [s]
    tpot_s: float  # achieved time per output token [s]
    tpot_floor_s: float  # the fastest TPOT an instance reaches (batch 1) [s]
    output_tokens_per_s_per_gpu: float  # an instance's output tokens/s over its GPUs [tokens/s/GPU]
    fleet_tokens_per_s_per_gpu: float  # input and output tokens/s of the fleet at peak over its GPUs
    cost_per_hour: float  # the fleet [currency/h]
    cost_per_mtok: float  # a million tokens, input and output together [currency]
    cost_per_mtok_input: float  # a million input tokens [currency]
    cost_per_mtok_output: float  # a million output tokens [currency]
    fabric_share: float  # the fabric's share of that cost [0-1]
    cost_per_server_hour: float  # a server-hour of the scenario's cluster with this fabric [currency/h]
    sla_met: bool
    reason: str  # "" when met, else one of :data:`REASONS`
    servers_vs_baseline: float  # servers more than the baseline fabric [count]; NaN where either misses
    cost_ratio_vs_baseline: float  # cost per million tokens over the baseline's [×]; NaN where either misses


@dataclass(frozen=True)
class ServingAnswers:
    """Every fabric's :class:`FabricServing`, in the scenario's fabric order, and what they share."""

    fabrics: tuple[FabricServing, ...]
    baseline: str  # the scenario's baseline fabric
    currency: str  # the price book's currency
    hours_per_year: float  # the hours a year the server-hour's price spreads the cost over [h]

    def row(self, fabric: str) -> FabricServing:
        """The answer of ``fabric``; KeyError when it is not compared."""
        for r in self.fabrics:
            if r.fabric == fabric:
                return r
        raise KeyError(fabric)

    def cheapest(self) -> FabricServing | None:
        """The fabric with the lowest cost per million tokens among those that meet the SLA (None: none do)."""
        met = [r for r in self.fabrics if r.sla_met]
        return min(met, key=lambda r: r.cost_per_mtok) if met else None


def scenario_inputs(scenario: Scenario, catalog: Catalog | None = None) -> ServingInputs:
    """The serving inputs of ``scenario.serving`` on the scenario's part, fabrics and prices, ``(1, F)``."""
    s = scenario.serving
    return serving_inputs(scenario, s.model, precision=s.precision, peak_rps=s.peak_rps, avg_rps=s.avg_rps,
                          prompt=s.prompt_tokens, output=s.output_tokens, ttft_s=s.ttft_s, tpot_s=s.tpot_s,
                          disaggregated=float(s.disaggregated), catalog=catalog)


def tpot_floor(x: ServingInputs) -> np.ndarray:
    """The TPOT of one instance at batch 1 [s]: its decode step plus, colocated, one chunk of prefill."""
    gpus, _ = instance_gpus(x)
    kv = physics.kv_bytes_per_token(x.n_layers, x.kv_heads, x.head_dim, x.kv_latent, x.kv_bytes)
    t_pf, _ = prefill_s(x, gpus, kv)
    step = decode_step_s(x, gpus, kv, 1.0)
    return step + np.where(np.asarray(x.disaggregated) > 0, 0.0, t_pf / x.output)


def _reason(tpot_floor_s: float, ttft_s: float, x_tpot: float, x_ttft: float) -> str:
    if tpot_floor_s > x_tpot:
        return "tpot_floor"
    return "ttft_floor" if ttft_s > x_ttft else ""


def serving_answers(scenario: Scenario, catalog: Catalog | None = None) -> ServingAnswers:
    """Each compared fabric's serving answer for ``scenario.serving`` (see :class:`FabricServing`)."""
    cat = catalog or load_catalog()
    x = scenario_inputs(scenario, cat)
    r = serve(x)
    floor = np.broadcast_to(tpot_floor(x), r["servers"].shape)
    cmp = equal_sla(r, baseline=scenario.fabrics.index(scenario.baseline))
    s = scenario.serving
    rows = []
    for i, fid in enumerate(scenario.fabrics):
        def at(a, i=i) -> float:
            return float(np.asarray(a)[0, i])
        met = bool(r["reachable"][0, i])
        rows.append(FabricServing(
            fabric=fid, servers=at(r["servers"]), gpus=at(r["gpus"]), instance_servers=at(r["instance_servers"]),
            batch=at(r["batch"]) if met else float("nan"), ttft_s=at(r["ttft_s"]),
            tpot_s=at(r["tpot_s"]) if met else float("nan"), tpot_floor_s=at(floor),
            output_tokens_per_s_per_gpu=at(r["output_tokens_per_s_per_gpu"]),
            fleet_tokens_per_s_per_gpu=at(r["fleet_tokens_per_s_per_gpu"]),
            cost_per_hour=at(r["cost_per_hour"]), cost_per_mtok=at(r["cost_per_mtok"]),
            cost_per_mtok_input=at(r["cost_per_mtok_input"]), cost_per_mtok_output=at(r["cost_per_mtok_output"]),
            fabric_share=at(np.broadcast_to(x.fabric_share, r["servers"].shape)),
            cost_per_server_hour=at(np.broadcast_to(x.cost_per_server_hour, r["servers"].shape)),
            sla_met=met, reason="" if met else _reason(at(floor), at(r["ttft_s"]), s.tpot_s, s.ttft_s),
            servers_vs_baseline=at(cmp["servers_delta"]), cost_ratio_vs_baseline=at(cmp["cost_per_mtok_ratio"]),
        ))
    currency = evaluate(scenario, cat).currency
    return ServingAnswers(fabrics=tuple(rows), baseline=scenario.baseline, currency=currency,
                          hours_per_year=HOURS_PER_YEAR)


def latency_curve(scenario: Scenario, catalog: Catalog | None = None) -> dict[str, np.ndarray]:
    """Each fabric's latency against throughput for one instance over the decode batches that fit its
    memory: ``batch`` [sequences] ``(B,)``; ``tpot_s`` [s] and ``tokens_per_s_per_gpu`` (output tokens/s
    of the instance over its GPUs) ``(F, B)``, NaN where the batch does not fit; ``instance_gpus`` ``(F,)``."""
    x = scenario_inputs(scenario, catalog)
    gpus, _ = instance_gpus(x)
    kv = physics.kv_bytes_per_token(x.n_layers, x.kv_heads, x.head_dim, x.kv_latent, x.kv_bytes)
    t_pf, _ = prefill_s(x, gpus, kv)
    b = x.batch_grid
    ex = x.map(lambda a: np.asarray(a, dtype=float)[..., None])
    step = decode_step_s(ex, np.asarray(gpus)[..., None], np.asarray(kv)[..., None], b)
    colocated = np.asarray(x.disaggregated) <= 0
    tpot = step + np.where(colocated, b / x.output * np.asarray(t_pf)[..., None], 0.0)
    free = gpus * x.memory_bytes * x.memory_utilization - x.total_params * x.weight_bytes
    fits = b <= np.asarray(free / (kv * (x.prompt + x.output)))[..., None]
    shape = (len(scenario.fabrics), b.size)
    tpot = np.broadcast_to(np.where(fits, tpot, np.nan), (1, *shape))[0]  # (1, F, B) → (F, B)
    g = np.broadcast_to(np.asarray(gpus, dtype=float), (1, shape[0]))[0]
    return {"batch": b, "tpot_s": tpot, "tokens_per_s_per_gpu": b / tpot / g[:, None], "instance_gpus": g}


__all__ = ["REASONS", "FabricServing", "ServingAnswers", "latency_curve", "scenario_inputs", "serving_answers",
           "tpot_floor"]
