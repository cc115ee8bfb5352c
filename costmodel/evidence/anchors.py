"""The published figures the defaults must agree with, computed by the model itself.

Used by the validation tests (tests/unit/test_anchors.py) and the Method page, so the page
shows what the model gives today, not numbers typed into it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from costmodel.catalog.loader import load_catalog
from costmodel.pipeline.inputs import build
from costmodel.pipeline.tco import compute
from costmodel.scenario.schema import Scenario

#: nccl-tests' busbw anchors are large-message (≥ 1 GiB) figures [B]
LARGE_MESSAGE_BYTES = 2**30
LLAMA3_DAYS = 54  # the Llama 3 snapshot's length [days]
HOURS_PER_DAY = 24
HOURS_PER_YEAR = 8760
LLAMA3_MODULE = "osfp-400g"  # Meta's 400G RoCE fabric: a single-port 400G module at every link end


@dataclass(frozen=True)
class Anchor:
    key: str
    published: str
    source: str
    model: float
    unit: str


def _a100_scenario(nodes: int, nics: int) -> Scenario:
    return Scenario.model_validate({
        "cluster": {"nodes": nodes, "gpu": "a100-80", "gpus_per_node": 8, "nics_per_node": nics},
        "workload": {"model_params_b": 70, "global_batch_tokens_m": 4},
        "fabrics": ["tcp-100", "roce-200", "iwarp-100", "ib-hdr-200", "ib-ndr-400"], "baseline": "tcp-100",
    })


def busbw_gbs(scenario: Scenario, bucket_bytes: float = LARGE_MESSAGE_BYTES) -> dict[str, float]:
    """All-reduce bus bandwidth per fabric [GB/s] with messages of ``bucket_bytes``."""
    built = build(scenario)
    out = compute(built.inputs.replace(bucket_bytes=np.float64(bucket_bytes)), built.structure)
    return dict(zip(built.structure.fabric_ids, out.metrics["allreduce_busbw_gbs"][0].tolist(), strict=True))


def llama3_metrics() -> dict[str, float]:
    """Interruptions of 2,048 × 8 H100 on 8 × 400G RoCE over the Llama 3 snapshot."""
    scenario = Scenario.model_validate({
        # the 16K-GPU job ran in a 24K-GPU cluster (Llama 3, sec. 3.3.1): 1,024 servers to spare
        "cluster": {"nodes": 2048, "gpu": "h100", "gpus_per_node": 8, "nics_per_node": 8,
                    "hot_spare_node_frac": 0.5},
        "workload": {"schedule": "always_busy", "model_params_b": 405},
        "fabrics": ["roce-400"], "baseline": "roce-400",
    })
    # Meta's 400G fabric of 2024 (12.8 T switches): one single-port module per link end, not the
    # twin-port cages of the catalog's 51.2 T roce-400 (failures follow modules)
    built = build(scenario)
    ports = np.full((1, 1), load_catalog().modules[LLAMA3_MODULE].ports.typical)
    out = compute(built.inputs.replace(switch_module_ports=ports, node_module_ports=ports), built.structure)
    m = {k: float(np.asarray(v)[0, 0]) for k, v in out.metrics.items()}
    share = LLAMA3_DAYS * HOURS_PER_DAY / HOURS_PER_YEAR
    return {
        "interruptions": m["interruptions_per_year"] * share,
        "network_share": m["network_interruptions_per_year"] / m["interruptions_per_year"],
        "goodput": m["goodput"],
    }


def anchors() -> list[Anchor]:
    """Every anchor with the model's current figure."""
    ib = busbw_gbs(_a100_scenario(16, 8))["ib-hdr-200"]
    tcp = busbw_gbs(_a100_scenario(4, 1))["tcp-100"]
    llama = llama3_metrics()
    return [
        Anchor("nccl_ib", "≈ 192 GB/s", "nccl-tests, DGX A100 8 × HDR 200", ib, "GB/s"),
        Anchor("nccl_tcp", "4–6 GB/s", "NCCL sockets, 100 GbE, 4 nodes", tcp, "GB/s"),
        Anchor("llama3", "419", "Llama 3 (Dubey et al. 2024), Table 5", llama["interruptions"], "interruptions"),
        Anchor("llama3_network", "≈ 10 % (42 of 419)", "Llama 3, Table 5", 100 * llama["network_share"], "%"),
    ]
