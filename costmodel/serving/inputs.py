"""The serving model's inputs: one frozen set of numpy arrays that broadcast together.

:class:`ServingInputs` holds the model shape, the serving precision's bytes and peak, the part, the
fabric's figures, demand, SLA, efficiencies, the layout options and the price of a server-hour.
:func:`defaults` fills what comes from the catalog and ``serving.yaml``;
:mod:`costmodel.serving.from_scenario` fills the fabric figures and prices from a scenario through
the training model's own readers. Vary any field by giving it more rows (a sweep of demand levels
``(D, 1)``, Monte Carlo draws ``(S, 1)``) beside fabric columns ``(1, F)``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from costmodel.catalog import serving_data
from costmodel.catalog.loader import Catalog, load_catalog

Array = np.ndarray


@dataclass(frozen=True)
class ServingInputs:
    """Every input of :func:`costmodel.serving.sizing.serve`, each an array (units in the names or below)."""

    # the model [count]: parameters, layers, hidden size, attention and KV heads, head size, latent KV
    # elements per layer (0 = GQA), routed experts, experts per token, layers with experts
    total_params: Array
    active_params: Array
    n_layers: Array
    hidden: Array
    heads: Array
    kv_heads: Array
    head_dim: Array
    kv_latent: Array
    experts: Array
    top_k: Array
    moe_layers: Array
    # the serving precision: bytes per weight, KV element, dispatched and combined element [B]; dense peak [FLOP/s]
    weight_bytes: Array
    kv_bytes: Array
    dispatch_bytes: Array
    combine_bytes: Array
    peak_flops: Array
    # the part: GPUs per server and per scale-up domain [count], memory [B], HBM [B/s], domain link [B/s], [s]
    gpus_per_server: Array
    domain_gpus: Array
    memory_bytes: Array
    hbm_Bps: Array
    nvlink_Bps: Array
    nvlink_latency_s: Array
    # the fabric: latency [s], host time per message [s], message rate [1/s], a GPU's all-to-all and
    # share of its server's bandwidth [B/s]
    latency_s: Array
    post_s: Array
    message_rate: Array
    a2a_Bps: Array
    gpu_Bps: Array
    # demand [requests/s] at peak and on average; mean prompt and output [tokens]; SLA targets [s]
    peak_rps: Array
    avg_rps: Array
    prompt: Array
    output: Array
    ttft_s: Array
    tpot_s: Array
    # efficiencies [0-1]
    prefill_mfu: Array
    decode_mfu: Array
    hbm_efficiency: Array
    memory_utilization: Array
    # layout: disaggregated prefill/decode (1) or colocated (0); servers per instance (0 = fewest that fit)
    disaggregated: Array
    instance_servers: Array
    # money: a server-hour of the cluster [currency/h], the fabric's share of it [0-1]
    cost_per_server_hour: Array
    fabric_share: Array
    # candidate decode batches of one instance [sequences], shape (B,)
    batch_grid: Array

    def map(self, fn: Callable[[Array], Array]) -> ServingInputs:
        """A copy with ``fn`` applied to every array but the batch grid."""
        return dataclasses.replace(self, **{f.name: fn(getattr(self, f.name)) for f in dataclasses.fields(self)
                                            if f.name != "batch_grid"})

    def replace(self, **changes) -> ServingInputs:
        """A copy with ``changes`` (each converted to a float array)."""
        return dataclasses.replace(self, **{k: np.asarray(v, dtype=float) for k, v in changes.items()})


def batch_grid(sd: serving_data.ServingData) -> Array:
    """The candidate batch sizes, geometric from 1 to ``max_batch`` [sequences]."""
    g = sd.batch_grid
    return np.geomspace(1.0, g.max_batch.typical, int(g.points.typical))


def model_shape(model: str | dict[str, float], catalog: Catalog | None = None) -> dict[str, Array]:
    """The shape arrays of a named model of serving.yaml, or of a mapping with every ``SHAPE_KEYS`` figure."""
    values = serving_data.checked(catalog or load_catalog()).models[model].values() if isinstance(model, str) else model
    return {k: np.asarray(values[k], dtype=float) for k in serving_data.SHAPE_KEYS}


def part_arrays(gpu: str, precision: str, catalog: Catalog | None = None) -> dict[str, Array]:
    """Precision bytes and peak, memory, HBM bandwidth, GPUs per server and per scale-up domain of ``gpu``
    from the catalog (gpus.yaml, gemm_efficiency.yaml) and serving.yaml. Raises ValueError where the part
    has no tensor cores of ``precision``."""
    cat = catalog or load_catalog()
    sd, spec = serving_data.checked(cat), cat.gpus[gpu]
    peak = spec.peak_tflops(precision)
    if peak is None:
        raise ValueError(f"{gpu} has no {precision} tensor cores")
    per_server = spec.default_gpus_per_node.typical
    domain = getattr(spec, "scaleup_domain_gpus", None)  # the scale-up domain where the catalog has it
    b = sd.bytes
    return {"weight_bytes": b.weight[precision].typical, "kv_bytes": b.kv[precision].typical,
            "dispatch_bytes": b.dispatch[precision].typical, "combine_bytes": b.combine.typical,
            "peak_flops": peak * 1e12, "memory_bytes": spec.memory_gb.typical * 1e9,
            "hbm_Bps": cat.kernels[gpu].hbm_gbs.typical * 1e9, "gpus_per_server": per_server,
            "domain_gpus": per_server if domain is None else domain.typical}


def efficiency_arrays(catalog: Catalog | None = None) -> dict[str, float]:
    """The efficiencies of serving.yaml (typical values)."""
    e = serving_data.checked(catalog or load_catalog()).efficiency
    return {k: getattr(e, k).typical for k in ("prefill_mfu", "decode_mfu", "hbm_efficiency", "memory_utilization")}


def transport_arrays(transports: list[str], catalog: Catalog | None = None) -> dict[str, Array]:
    """Host time per message [s] and message rate [1/s] of each fabric's transport (verbs, socket), ``(1, F)``."""
    t = serving_data.checked(catalog or load_catalog()).transport
    return {"post_s": np.array([[t[k].post_us.typical * 1e-6 for k in transports]]),
            "message_rate": np.array([[t[k].message_rate_mps.typical * 1e6 for k in transports]])}


__all__ = ["ServingInputs", "batch_grid", "efficiency_arrays", "model_shape", "part_arrays", "transport_arrays"]
