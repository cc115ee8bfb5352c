"""Racks from power: how many servers a rack holds under the site's power limit, and how many racks.

A rack holds ``min(nodes_per_rack, ⌊limit / P_server⌋)`` servers, at least one (a server that alone
exceeds the limit still takes a rack; the scenario warns, :mod:`costmodel.pipeline.facility_checks`),
where ``P_server = g · TDP + P_host`` is the server's peak power [kW]; the cluster takes
``⌈N / per rack⌉`` compute racks. The rack layout and the link lengths that follow are
:mod:`costmodel.physics.media`'s.

References
----------
.. [1] NVIDIA, "DGX SuperPOD Reference Architecture — DGX B300", 2025 (4 DGX per rack, ~56 kW).
"""

from __future__ import annotations

import numpy as np

_EPS = 1e-9  # guards floor/ceil against 45/9 = 4.999…


def server_kw(gpus_per_node, gpu_tdp_kw, host_power_kw) -> np.ndarray:
    """Peak power of one server [kW]: its GPUs at TDP plus the host.

    >>> float(server_kw(8, 0.7, 3.0))
    8.6
    """
    return np.asarray(gpus_per_node, dtype=float) * gpu_tdp_kw + host_power_kw


def servers_per_rack(nodes_per_rack, limit_kw, server_power_kw) -> np.ndarray:
    """Servers in one rack [count]: ``max(1, min(nodes_per_rack, ⌊limit / P_server⌋))``.

    >>> [float(servers_per_rack(4, 45.0, kw)) for kw in (8.6, 11.5, 120.0)]
    [4.0, 3.0, 1.0]
    """
    fit = np.floor(np.asarray(limit_kw, dtype=float) / np.asarray(server_power_kw, dtype=float) + _EPS)
    return np.maximum(1.0, np.minimum(np.asarray(nodes_per_rack, dtype=float), fit))


def racks(nodes, per_rack) -> np.ndarray:
    """Compute racks of the cluster [count]: ``⌈N / per rack⌉``.

    >>> float(racks(128, 4)), float(racks(129, 4))
    (32.0, 33.0)
    """
    return np.ceil(np.asarray(nodes, dtype=float) / np.asarray(per_rack, dtype=float) - _EPS)
