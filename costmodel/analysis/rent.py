"""Own vs rent: what an owned cluster's GPU-hour costs, what renting the same work costs, and the
utilisation at which owning is the cheaper of the two.

Money is in the result's currency (rental prices, stored in USD in ``data/rental_prices.yaml``, are
converted at the catalog's reference rate); time in hours; utilisation a fraction of the 8,760 hours
of a year. The core functions are numpy ufunc arithmetic, so every argument broadcasts.

Definitions (``G`` = GPUs of the cluster, ``H`` = horizon [years], ``C`` = cash cost over the
horizon, i.e. TCO without the two opportunity costs, as :mod:`costmodel.pipeline.tco` defines it):

* owned cost per GPU-hour at utilisation ``u``: ``C / H / (G · 8760 · u)``; at ``u = 1`` the cost of
  every hour of the year, at the plan's busy hours the cost per hour the cluster trains;
* rented GPU-hours of a fabric's yearly work: ``runs/year · T_run,ref · G``, where ``T_run,ref`` is
  the run time of the *reference* fabric: the scenario's fastest (a rented training cluster is
  InfiniBand/RoCE-class) or, with ``rented_efficiency="own"``, the fabric's own;
* cost to rent that work per year: ``price · rented GPU-hours``;
* break-even utilisation: ``(C / H) / (price · G · 8760)`` — owning is cheaper when the cluster is
  busy more than this share of the year (above 1: renting is cheaper even at full use).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from costmodel.catalog.currency import reference_rate
from costmodel.catalog.loader import DATA_DIR, Catalog, CatalogError, Quantity, load_catalog
from costmodel.pipeline.results import Result

HOURS_PER_YEAR = 8760.0
LEVELS = ("low", "typical", "high")
RENTAL_FILE = DATA_DIR / "rental_prices.yaml"
RentedEfficiency = Literal["fastest", "own"]


class RentalTable(BaseModel):
    """``rental_prices.yaml``: USD per GPU-hour by GPU id and rental class, each a sourced range."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    currency: str
    as_of: str
    rented_efficiency: RentedEfficiency
    commitment_price_factor: Quantity
    classes: tuple[str, ...]
    gpus: dict[str, dict[str, Quantity]]

    @model_validator(mode="after")
    def _check(self) -> RentalTable:
        for gpu, by_class in self.gpus.items():
            if set(by_class) != set(self.classes):
                raise ValueError(f"gpus.{gpu}: classes {sorted(by_class)}, expected {list(self.classes)}")
            for cls, q in by_class.items():
                if q.lo <= 0:
                    raise ValueError(f"gpus.{gpu}.{cls}: prices must be positive, got low {q.lo}")
        return self

    def prices(self, gpu: str) -> np.ndarray:
        """``(classes, 3)`` low / typical / high [USD/GPU-h] of ``gpu``; KeyError when none is stored."""
        by_class = self.gpus[gpu]
        return np.array([[by_class[c].lo, by_class[c].typical, by_class[c].hi] for c in self.classes])


@functools.lru_cache(maxsize=4)
def load_rental_table(path: Path = RENTAL_FILE) -> RentalTable:
    """Read and validate the rental table: known GPU ids, known sources (of the packaged catalog; cached)."""
    cat = load_catalog()
    try:
        with path.open(encoding="utf-8") as fh:
            table = RentalTable.model_validate(yaml.load(fh, Loader=yaml.CSafeLoader))
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise CatalogError(f"{path.name}: {exc}") from exc
    for gpu, by_class in table.gpus.items():
        if gpu not in cat.gpus:
            raise CatalogError(f"{path.name}: unknown GPU id {gpu!r}; known: {', '.join(sorted(cat.gpus))}")
        for cls, q in by_class.items():
            if q.source not in cat.references:
                raise CatalogError(f"{path.name}: gpus.{gpu}.{cls}: unknown source key {q.source!r}")
    if table.commitment_price_factor.source not in cat.references:
        raise CatalogError(f"{path.name}: commitment_price_factor: unknown source key")
    return table


# --- the vectorised core (numpy arrays broadcast; scalars work too)

def owned_cost_per_gpu_hour(cash_per_year, gpus, utilisation=1.0):
    """Owned cost of one used GPU-hour [currency/GPU-h]: ``cash/year / (GPUs · 8760 · utilisation)``.

    >>> float(owned_cost_per_gpu_hour(8760.0, 1, 0.5))
    2.0
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.divide(cash_per_year, np.multiply(np.multiply(gpus, HOURS_PER_YEAR), utilisation))


def break_even_utilisation(cash_per_year, gpus, price):
    """Share of the year the owned cluster must be busy to cost no more than renting [1].

    ``cash/year / (price · GPUs · 8760)``; above 1 renting is cheaper even at full use.

    >>> float(break_even_utilisation(8760.0 * 2, 1, 4.0))
    0.5
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.divide(cash_per_year, np.multiply(np.multiply(price, gpus), HOURS_PER_YEAR))


def rented_gpu_hours(runs_per_year, run_hours_ref, gpus):
    """GPU-hours a year of the work takes on the rented cluster [GPU-h/year]: ``runs · T_run,ref · GPUs``."""
    return np.multiply(np.multiply(runs_per_year, run_hours_ref), gpus)


def rent_cost(price, gpu_hours):
    """Cost of renting ``gpu_hours`` at ``price`` [currency]."""
    return np.multiply(price, gpu_hours)


# --- one evaluated scenario

@dataclass(frozen=True)
class OwnVsRent:
    """Own vs rent for each fabric of one result. Shapes: ``F`` fabrics, ``C`` rental classes, 3
    levels (low, typical, high). Money in ``currency``; NaN where a figure has no meaning (no run)."""

    fabric_ids: tuple[str, ...]
    gpu: str
    gpus: int
    currency: str
    classes: tuple[str, ...]
    sources: tuple[str, ...]  # reference key per class
    as_of: tuple[str, ...]  # month read per class
    rented_efficiency: str
    reference: tuple[str | None, ...]  # per fabric: the fabric whose run time the rented cluster needs
    prices: np.ndarray  # (C, 3) [currency/GPU-h]
    owned_cash_per_year: np.ndarray  # (F,) [currency/year]
    owned_per_gpu_hour: np.ndarray  # (F,) every hour of the year [currency/GPU-h]
    owned_per_busy_gpu_hour: np.ndarray  # (F,) hours the plan keeps the cluster busy
    #: (F,) hours of the plan that train usefully: the busy figure over the useful share of a busy hour
    owned_per_useful_gpu_hour: np.ndarray
    busy_share: np.ndarray  # (F,) busy hours / 8760 [1]
    rent_gpu_hours_per_year: np.ndarray  # (F,) [GPU-h/year]
    rent_cost_per_year: np.ndarray  # (F, C, 3) [currency/year]
    break_even: np.ndarray  # (F, C, 3) [1]

    def index(self, fabric_id: str) -> int:
        return self.fabric_ids.index(fabric_id)


def _metric(result: Result, key: str) -> np.ndarray:
    return np.array([math.nan if f.metrics.get(key) is None else float(f.metrics[key]) for f in result.fabrics])


def own_vs_rent(result: Result, gpu: str, gpus_per_node: int, table: RentalTable | None = None,
                rented_efficiency: RentedEfficiency | None = None, catalog: Catalog | None = None) -> OwnVsRent:
    """Own vs rent for every fabric of ``result`` (whole-cluster scope: only then is the cash cost
    the cluster's).

    Parameters
    ----------
    result : Result
        An evaluated scenario (:func:`costmodel.evaluate`).
    gpu : str
        The scenario's GPU id (rented as the same GPU).
    gpus_per_node : int
        GPUs per server; the cluster has ``result.nodes · gpus_per_node`` GPUs.
    table : RentalTable, optional
        Default: the packaged ``rental_prices.yaml``.
    rented_efficiency : {"fastest", "own"}, optional
        Whose run time the rented cluster needs; default: the table's (``fastest``).

    Raises
    ------
    ValueError
        In fabric scope, or with no rental price stored for ``gpu`` (naming the GPUs that have one).
    """
    if result.scope != "cluster":
        raise ValueError(f"own vs rent needs whole-cluster scope (scope 'cluster'), got {result.scope!r}")
    cat = catalog or load_catalog()
    table = table or load_rental_table()
    if gpu not in table.gpus:
        raise ValueError(f"no rental price stored for GPU {gpu!r}; stored: {', '.join(sorted(table.gpus))}")
    mode = rented_efficiency or table.rented_efficiency
    rate = reference_rate(table.currency, result.currency, cat)
    prices = table.prices(gpu) * rate  # (C, 3)
    gpus = int(result.nodes) * int(gpus_per_node)
    years = float(result.horizon_years)

    cash_year = _metric(result, "cash_total") / years
    busy = _metric(result, "busy_hours_per_year")
    runs = _metric(result, "runs_per_year")
    run_h = _metric(result, "run_days") * 24.0
    ids = tuple(f.id for f in result.fabrics)
    if mode == "fastest":
        finite = np.isfinite(run_h) & (run_h > 0)
        j = int(np.argmin(np.where(finite, run_h, np.inf))) if finite.any() else None
        ref_h = np.full(run_h.shape, run_h[j] if j is not None else math.nan)
        reference = tuple(ids[j] if j is not None else None for _ in ids)
    else:
        ref_h = run_h
        reference = ids
    rent_h = rented_gpu_hours(runs, ref_h, gpus)  # (F,)
    per_busy = owned_cost_per_gpu_hour(cash_year, gpus, busy / HOURS_PER_YEAR)
    # the useful share of a training GPU-hour as the model counts it (goodput, setup, utilisation):
    # its cost of a training GPU-hour over its cost of a useful one
    with np.errstate(divide="ignore", invalid="ignore"):
        useful_share = _metric(result, "cost_per_cluster_hour") / gpus / _metric(result, "cost_per_useful_gpu_hour")
    return OwnVsRent(
        fabric_ids=ids, gpu=gpu, gpus=gpus, currency=result.currency, classes=table.classes,
        sources=tuple(table.gpus[gpu][c].source for c in table.classes),
        as_of=tuple(table.gpus[gpu][c].as_of for c in table.classes),
        rented_efficiency=mode, reference=reference, prices=prices,
        owned_cash_per_year=cash_year,
        owned_per_gpu_hour=owned_cost_per_gpu_hour(cash_year, gpus, 1.0),
        owned_per_busy_gpu_hour=per_busy,
        owned_per_useful_gpu_hour=per_busy / useful_share,
        busy_share=busy / HOURS_PER_YEAR,
        rent_gpu_hours_per_year=rent_h,
        rent_cost_per_year=rent_cost(prices[None, :, :], rent_h[:, None, None]),
        break_even=break_even_utilisation(cash_year[:, None, None], gpus, prices[None, :, :]),
    )


def for_scenario(result: Result, scenario, table: RentalTable | None = None,
                 rented_efficiency: RentedEfficiency | None = None, catalog: Catalog | None = None) -> OwnVsRent:
    """:func:`own_vs_rent` with the GPU and GPUs per node of ``scenario`` (its own or the GPU's default)."""
    cat = catalog or load_catalog()
    gpu = scenario.cluster.gpu
    per_node = scenario.cluster.gpus_per_node or int(cat.gpus[gpu].default_gpus_per_node.typical)
    return own_vs_rent(result, gpu, per_node, table, rented_efficiency, cat)


__all__ = ["HOURS_PER_YEAR", "LEVELS", "OwnVsRent", "RentalTable", "break_even_utilisation", "for_scenario",
           "load_rental_table", "own_vs_rent", "owned_cost_per_gpu_hour", "rent_cost", "rented_gpu_hours"]
