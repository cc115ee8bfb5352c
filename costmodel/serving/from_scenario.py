"""Serving inputs from a scenario: the part, each fabric's figures and the price of a server-hour,
all through the training model's own readers (no constant of the catalog repeated).

* Fabric figures (``(1, F)``): the latency across the fabric ``L_port + hops · L_hop`` (the
  scenario's topology), one GPU's all-to-all bandwidth and its share of its server's loss- and
  congestion-adjusted bandwidth, the domain link's bandwidth and latency — the arrays
  :func:`costmodel.pipeline.stages.step_time.step_args` gives the training step; the per-message
  host time and message rate of the fabric's NCCL transport (serving.yaml).
* Money (``(1, F)``): the scenario's ``cost_per_cluster_hour`` over its servers (the cluster-scope
  result), and the fabric's share of it (the fabric-scope result's over the cluster-scope's).
"""

from __future__ import annotations

import numpy as np

from costmodel.api import evaluate
from costmodel.catalog import serving_data
from costmodel.catalog.loader import Catalog, load_catalog
from costmodel.pipeline.inputs import build
from costmodel.pipeline.stages.batch import batch_nodes, float_inputs
from costmodel.pipeline.stages.step_time import step_args
from costmodel.pipeline.stages.topology import topology
from costmodel.scenario.schema import Scenario
from costmodel.serving.inputs import (
    ServingInputs,
    batch_grid,
    efficiency_arrays,
    model_shape,
    part_arrays,
    transport_arrays,
)


def fabric_arrays(scenario: Scenario, catalog: Catalog | None = None) -> dict[str, np.ndarray]:
    """Each fabric's latency [s], per-message host time [s] and rate [1/s], a GPU's all-to-all and
    fabric bandwidth [B/s], the domain link [B/s] and its latency [s], GPUs per server and memory [B]."""
    cat = catalog or load_catalog()
    built = build(scenario, cat)
    own = float_inputs(built.inputs)
    p, _ = batch_nodes(own)
    fabric_latency, _eta, node_bw, args = step_args(p, topology(own))
    transports = [cat.fabrics[f].nccl_transport for f in built.structure.fabric_ids]
    g = p.gpus_per_node
    return {"latency_s": fabric_latency, "a2a_Bps": args["a2a_bw_gpu_Bps"], "gpu_Bps": node_bw / g,
            "nvlink_Bps": p.intra_node_Bps * p.nvlink_eff, "nvlink_latency_s": p.nvlink_latency_s,
            "gpus_per_server": g, "memory_bytes": p.gpu_memory_bytes, **transport_arrays(transports, cat)}


def money_arrays(scenario: Scenario, catalog: Catalog | None = None) -> dict[str, np.ndarray]:
    """Each fabric's cost of a server-hour [currency/h] and the fabric's share of it [0-1], ``(1, F)``."""
    cluster = evaluate(scenario.model_copy(update={"scope": "cluster"}), catalog)
    fabric = evaluate(scenario.model_copy(update={"scope": "fabric"}), catalog)
    per_hour = np.array([[f.metrics["cost_per_cluster_hour"] for f in cluster.fabrics]], dtype=float)
    own = np.array([[f.metrics["cost_per_cluster_hour"] for f in fabric.fabrics]], dtype=float)
    return {"cost_per_server_hour": per_hour / scenario.cluster.nodes, "fabric_share": own / per_hour}


def serving_inputs(scenario: Scenario, model: str | dict[str, float], *, precision: str, peak_rps, avg_rps,
                   prompt, output, ttft_s, tpot_s, disaggregated=0.0, instance_servers=0.0,
                   catalog: Catalog | None = None) -> ServingInputs:
    """The serving inputs of ``model`` (a serving.yaml name or a shape mapping) at ``precision`` on the
    scenario's part, fabrics and prices; demand [requests/s], lengths [tokens], SLA [s] as given
    (arrays broadcast against the fabric columns)."""
    cat = catalog or load_catalog()
    part = part_arrays(scenario.cluster.gpu, precision, cat)
    fab = fabric_arrays(scenario, cat)
    if scenario.cluster.gpus_per_node:  # a scenario's own server size; the domain at least that
        part["domain_gpus"] = max(part["domain_gpus"], float(scenario.cluster.gpus_per_node))
    part.update({k: fab.pop(k) for k in ("gpus_per_server", "memory_bytes")})
    values = {**model_shape(model, cat), **part, **fab, **efficiency_arrays(cat), **money_arrays(scenario, cat),
              "peak_rps": peak_rps, "avg_rps": avg_rps, "prompt": prompt, "output": output, "ttft_s": ttft_s,
              "tpot_s": tpot_s, "disaggregated": disaggregated, "instance_servers": instance_servers}
    arrays = {k: np.asarray(v, dtype=float) for k, v in values.items()}
    return ServingInputs(**arrays, batch_grid=batch_grid(serving_data.checked(cat)))


__all__ = ["fabric_arrays", "money_arrays", "serving_inputs"]
