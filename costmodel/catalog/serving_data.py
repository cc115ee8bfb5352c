"""The serving defaults and named model shapes of ``costmodel/data/serving.yaml``, read on first use.

Every number is a :class:`~costmodel.catalog.quantity.Quantity` whose ``source`` must be a key of
``references.yaml`` (checked against the catalog the model computes with).
"""

from __future__ import annotations

import functools
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from costmodel.catalog.loader import DATA_DIR, Catalog
from costmodel.catalog.quantity import Quantity
from costmodel.errors import CatalogError

PRECISIONS = ("bf16", "fp8", "fp4")
TRANSPORTS = ("verbs", "socket")
#: the shape figures of a named model (serving.yaml ``models``), in :class:`Workload` order
SHAPE_KEYS = ("total_params", "active_params", "n_layers", "hidden", "heads", "kv_heads", "head_dim", "kv_latent",
              "experts", "top_k", "moe_layers")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Efficiency(_Strict):
    prefill_mfu: Quantity
    decode_mfu: Quantity
    hbm_efficiency: Quantity
    memory_utilization: Quantity


class Bytes(_Strict):
    weight: dict[str, Quantity]
    kv: dict[str, Quantity]
    dispatch: dict[str, Quantity]
    combine: Quantity


class Transport(_Strict):
    post_us: Quantity
    message_rate_mps: Quantity


class BatchGrid(_Strict):
    max_batch: Quantity
    points: Quantity


class ModelShape(_Strict):
    name: str
    total_params: Quantity
    active_params: Quantity
    n_layers: Quantity
    hidden: Quantity
    heads: Quantity
    kv_heads: Quantity
    head_dim: Quantity
    kv_latent: Quantity
    experts: Quantity
    top_k: Quantity
    moe_layers: Quantity

    def values(self) -> dict[str, float]:
        """The typical value of every shape figure (:data:`SHAPE_KEYS`)."""
        return {k: getattr(self, k).typical for k in SHAPE_KEYS}


class ServingData(_Strict):
    """Everything of serving.yaml."""

    defaults_as_of: str
    efficiency: Efficiency
    bytes: Bytes
    transport: dict[str, Transport]
    batch_grid: BatchGrid
    models: dict[str, ModelShape]


def _quantities(obj, where: str):
    if isinstance(obj, Quantity):
        yield where, obj
    elif isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            yield from _quantities(getattr(obj, name), f"{where}.{name}")
    elif isinstance(obj, dict):
        for key, val in obj.items():
            yield from _quantities(val, f"{where}.{key}")


@functools.lru_cache(maxsize=4)
def load(data_dir: Path = DATA_DIR) -> ServingData:
    """serving.yaml of ``data_dir`` validated (cached; read on first use, never at import)."""
    try:
        with (data_dir / "serving.yaml").open(encoding="utf-8") as fh:
            raw = yaml.load(fh, Loader=yaml.CSafeLoader)
        data = ServingData.model_validate(raw)
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise CatalogError(f"serving.yaml is invalid: {exc}") from exc
    for table, keys in (("weight", PRECISIONS), ("kv", PRECISIONS), ("dispatch", PRECISIONS)):
        if set(getattr(data.bytes, table)) != set(keys):
            raise CatalogError(f"serving.yaml bytes.{table}: need exactly {keys}")
    if set(data.transport) != set(TRANSPORTS):
        raise CatalogError(f"serving.yaml transport: need exactly {TRANSPORTS}")
    return data


def checked(catalog: Catalog, data_dir: Path = DATA_DIR) -> ServingData:
    """serving.yaml with every source checked against ``catalog``'s references."""
    data = load(data_dir)
    for where, q in _quantities(data, "serving"):
        if q.source not in catalog.references:
            raise CatalogError(f"{where}: unknown source key {q.source!r}")
    return data


__all__ = ["PRECISIONS", "SHAPE_KEYS", "TRANSPORTS", "ModelShape", "ServingData", "checked", "load"]
