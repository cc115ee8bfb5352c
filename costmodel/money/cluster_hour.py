"""The value of one hour of the whole cluster: what an interruption costs per hour lost.

A scenario may state it (``operations.value_of_cluster_hour``); otherwise it is what renting
the same GPUs would cost for that hour: ``rental_per_gpu_hour × nodes × GPUs per node``
[currency/h]. The model (:mod:`costmodel.pipeline.tco`) and the app's placeholder use these functions.
"""

from __future__ import annotations

import numpy as np

from costmodel.catalog.loader import Catalog, PriceBook, load_catalog
from costmodel.scenario import price_books
from costmodel.scenario.schema import Scenario


def rental_value(rental_per_gpu_hour, nodes, gpus_per_node):
    """Value of a cluster-hour at rental prices [currency/h]: ``rental [currency/GPU-h] × nodes × GPUs/node``.

    Broadcasts like numpy.

    >>> float(rental_value(2.5, 32, 8))
    640.0
    >>> rental_value(np.array([1.0, 2.0]), 4, 8).tolist()
    [32.0, 64.0]
    """
    return np.multiply(np.multiply(rental_per_gpu_hour, nodes), gpus_per_node)


def default_value_of_cluster_hour(scenario: Scenario, book: PriceBook | None = None,
                                  catalog: Catalog | None = None) -> float:
    """The value of a cluster-hour the model uses when the scenario states none [currency/h].

    The rental price is the scenario's override (Assumptions) or ``book``'s (default: the
    book the scenario is computed with); GPUs per node the scenario's or the GPU's default.
    """
    cat = catalog or load_catalog()
    book = book if book is not None else price_books.for_scenario(scenario, cat)
    gpu_id = scenario.cluster.gpu
    rental = scenario.overrides.gpu_prices.get(gpu_id, {}).get(
        "rental_per_gpu_hour", book.gpus[gpu_id].rental_per_gpu_hour.typical)
    gpus = scenario.cluster.gpus_per_node or cat.gpus[gpu_id].default_gpus_per_node.typical
    return float(rental_value(rental, scenario.cluster.nodes, gpus))


__all__ = ["default_value_of_cluster_hour", "rental_value"]
