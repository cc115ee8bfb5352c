"""Switches and links of a rail-optimised leaf–spine fabric, from the switch radix.

Each node has ``r`` fabric NICs (rails); NIC ``i`` of every node attaches to a leaf of rail ``i``,
so same-rail traffic of the nodes under one leaf crosses one switch. A leaf has ``d`` ports down
and up to ``k − d`` up; the oversubscription ratio ``o`` (1 = non-blocking) is down- over up-links.
Above the leaves a non-blocking folded Clos connects the leaves' uplinks.

All functions take numpy arrays that broadcast together and return arrays of the broadcast
shape; counts are float64 so the whole model stays in one dtype. Only the leaf tier is
oversubscribed; the tiers above are 1:1, as in NVIDIA's reference designs.

References
----------
.. [1] NVIDIA, "DGX SuperPOD Reference Architecture — DGX H100 — Network Fabrics", 2023
   (scalable unit: 32 nodes × 8 rails on 8 leaves and 4 spines of 64 ports).
.. [2] M. Al-Fares, A. Loukissas, A. Vahdat, "A scalable, commodity data center network
   architecture", SIGCOMM 2008.
"""

from __future__ import annotations

import numpy as np

from costmodel.physics.topology import tiers as fat_tree_tiers


def leaf_down_ports(radix: np.ndarray, oversubscription: np.ndarray) -> np.ndarray:
    """Ports of a leaf facing the nodes, ``d = ⌊k o / (1 + o)⌋`` [count]; the rest face up.

    >>> leaf_down_ports(np.array([64., 64., 144.]), np.array([1., 2., 1.])).tolist()
    [32.0, 42.0, 72.0]
    """
    k, o = np.asarray(radix, dtype=float), np.asarray(oversubscription, dtype=float)
    return np.floor(k * o / (1.0 + o) + 1e-9)


def _up(nodes_down: np.ndarray, o: np.ndarray) -> np.ndarray:
    """Uplinks of a leaf with ``nodes_down`` ports in use: ``⌈n / o⌉`` [count]."""
    return np.ceil(nodes_down / o - 1e-9)


def rail_fabric(nodes: np.ndarray, rails: np.ndarray, radix: np.ndarray,
                oversubscription: np.ndarray) -> dict[str, np.ndarray]:
    """Switch and link counts of a rail-optimised fabric.

    Parameters
    ----------
    nodes : servers ``N`` [count]
    rails : fabric NICs per server ``r`` [count]
    radix : ports per switch ``k`` [count]
    oversubscription : leaf down- over uplinks ``o`` >= 1 [ratio]

    Returns
    -------
    dict of [count] arrays: ``endpoints`` ``E = N r``; ``tiers``; ``leaves``, ``spines`` (every
    tier between leaves and the top), ``cores`` (the top tier when there are three or more);
    ``switches``; ``uplinks`` ``U`` (leaf-to-spine links); ``switch_links``; ``group_nodes``
    (nodes whose leaves share one network rack, :mod:`costmodel.physics.media`).

    Notes
    -----
    One switch when ``E <= k``. Otherwise, with ``d`` down-ports per leaf: if a rail's nodes fit
    one leaf (``N <= d``), ``⌊d / N⌋`` rails share a leaf, ``⌈r / ⌊d/N⌋⌉`` leaves; else each rail
    has ``⌈N / d⌉`` leaves. Each leaf has ``⌈n / o⌉`` uplinks for ``n`` ports down. Tiers
    ``t = 1 + t_ft(L)`` with ``t_ft`` the fat-tree tiers of ``L`` leaves (two tiers while
    ``L <= k``: every spine reaches every leaf). With ``t = 2`` there are ``⌈U / k⌉`` spines; with
    ``t >= 3``, ``t − 2`` middle tiers of ``⌈U / (k/2)⌉`` and ``⌈U / k⌉`` cores. Every tier
    boundary above the leaves carries ``U`` links: ``switch_links = (t − 1) U``. With ``r = 1``
    and ``o = 1`` this is the fat tree of :func:`costmodel.physics.topology.bill_of_materials`.

    >>> b = rail_fabric(np.array(32.), np.array(8.), np.array(64.), np.array(1.))
    >>> [float(b[x]) for x in ("tiers", "leaves", "spines", "uplinks", "switch_links")]
    [2.0, 8.0, 4.0, 256.0, 256.0]
    """
    n, r, k, o = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (nodes, rails, radix, oversubscription)))
    e = n * r
    single = e <= k
    d = leaf_down_ports(k, o)
    # a rail's nodes fit one leaf: pack whole rails onto leaves
    packed = n <= d
    rails_per_leaf = np.maximum(1.0, np.floor(d / np.maximum(n, 1.0)))
    full_leaves = np.floor(r / rails_per_leaf)
    rest_rails = r - full_leaves * rails_per_leaf
    up_packed = full_leaves * _up(rails_per_leaf * n, o) + _up(rest_rails * n, o)
    leaves_packed = full_leaves + (rest_rails > 0)
    # a rail spans several leaves: full leaves of d nodes and one with the rest
    full = np.floor(n / d)
    rest = n - full * d
    up_spread = r * (full * _up(d, o) + _up(rest, o))
    leaves_spread = r * (full + (rest > 0))
    leaves = np.where(single, 1.0, np.where(packed, leaves_packed, leaves_spread))
    uplinks = np.where(single, 0.0, np.where(packed, up_packed, up_spread))
    t = np.where(single, 1.0, 1.0 + fat_tree_tiers(leaves, k))
    top = np.ceil(uplinks / k - 1e-9)
    middle = np.ceil(uplinks / (k / 2.0) - 1e-9)
    spines = np.where(t == 2, top, np.where(t >= 3, (t - 2.0) * middle, 0.0))
    cores = np.where(t >= 3, top, 0.0)
    group_nodes = np.where(single, n, np.minimum(n, d))
    return {
        "endpoints": e,
        "tiers": t,
        "leaves": leaves,
        "spines": spines,
        "cores": cores,
        "switches": leaves + spines + cores,
        "uplinks": uplinks,
        "switch_links": np.where(single, 0.0, (t - 1.0) * uplinks),
        "group_nodes": group_nodes,
    }
