"""Congestion at scale: the share of a collective's bandwidth a rail-optimised fabric keeps.

Under one switch every fabric reaches its measured all-reduce efficiency ``η``. Once a rail's
nodes span more than one leaf, collective traffic crosses the spine, where flows are spread by
ECMP hashing (RoCE, TCP and iWARP on Ethernet), by per-packet adaptive routing with congestion
control (a Spectrum-X-class Ethernet fabric) or by InfiniBand's adaptive routing. The sources give
one figure "at scale" per routing class, not a curve, so the crossing applies it as a step:
``spine_efficiency`` (``fabrics.yaml``, per fabric, with its range and the kind of its source).

Traffic per rail. In a rail-optimised fabric NIC ``i`` of every node sits on rail ``i``, and
NCCL keeps each channel on one rail (PXN moves data over NVLink to the GPU of the right rail), so
both all-reduce and all-to-all traffic stay inside a rail [1, 2]. A rail's nodes under one leaf
(``n_leaf`` of ``N``) talk through that leaf only; the share of a node's peers beyond its leaf is
``x = (N − n_leaf) / (N − 1)``. A leaf has ``⌈n_leaf / o⌉`` uplinks for ``n_leaf`` nodes
(``o`` = oversubscription), so traffic spread evenly over the rail's peers (all-to-all; a ring
or tree whose neighbours the scheduler placed without regard to leaves) finds
``1 / (o · x)`` of the uplink capacity it asks for: the factor ``min(1, 1 / (o x))``.
All-reduce is treated the same way (placement-blind rings and trees), which is conservative: a
ring in leaf order sends one node's worth across each leaf boundary and would not feel ``o``.

Multipliers are in (0, 1]; arrays broadcast.

References
----------
.. [1] NVIDIA, "DGX SuperPOD Reference Architecture — DGX H100 — Network Fabrics", 2023
   ("traffic per rail … is always one hop away from the other 31 nodes in a SU; traffic between
   nodes, or between rails, traverses the spine layer").
.. [2] NVIDIA/nccl-tests issue #267 (all-to-all cannot aggregate several NICs: one NIC per GPU).
.. [3] A. Gangidi et al., "RDMA over Ethernet for Distributed AI Training at Meta Scale",
   SIGCOMM 2024 (ECMP vs enhanced ECMP with QP scaling: up to +40 % all-reduce).
"""

from __future__ import annotations

import numpy as np

from costmodel.physics.rails import leaf_down_ports


def leaf_nodes(nodes, rails, radix, oversubscription) -> np.ndarray:
    """Nodes of one rail under one leaf, ``n_leaf`` [count]: all ``N`` under a single switch
    (``N r <= k``) or when the rail fits one leaf, else the leaf's down-ports ``d``.

    >>> leaf_nodes(np.array([4., 32., 33., 128.]), 8., 64., 1.).tolist()
    [4.0, 32.0, 32.0, 32.0]
    """
    n = np.asarray(nodes, dtype=float)
    single = n * rails <= radix
    return np.where(single, n, np.minimum(n, leaf_down_ports(radix, oversubscription)))


def offleaf_share(nodes, n_leaf) -> np.ndarray:
    """Share of a node's same-rail peers beyond its leaf, ``(N − n_leaf) / (N − 1)`` [0-1]; 0 for one node.

    >>> offleaf_share(np.array([1., 32., 64., 128.]), np.array([1., 32., 32., 32.])).round(3).tolist()
    [0.0, 0.0, 0.508, 0.756]
    """
    n = np.asarray(nodes, dtype=float)
    return np.clip((n - n_leaf) / np.maximum(n - 1.0, 1.0), 0.0, 1.0)


def collective_factor(nodes, n_leaf, oversubscription, spine_efficiency) -> np.ndarray:
    """Share of a rail collective's bandwidth kept at this size, in (0, 1].

    Parameters
    ----------
    nodes : servers ``N`` [count]
    n_leaf : nodes of a rail under one leaf (:func:`leaf_nodes`) [count]
    oversubscription : leaf down- over uplinks ``o`` >= 1 [ratio]
    spine_efficiency : share kept once traffic crosses the spine (routing class; ``fabrics.yaml``) [0-1]

    Returns
    -------
    ``1`` while the rail fits one leaf; else ``spine_efficiency · min(1, 1 / (o x))`` with
    ``x`` = :func:`offleaf_share`.

    >>> collective_factor(np.array([32., 64., 128.]), 32., 1., 0.71).tolist()
    [1.0, 0.71, 0.71]
    >>> collective_factor(128., 32., np.array([1., 2., 3.]), 1.0).round(3).tolist()
    [1.0, 0.661, 0.441]
    """
    x = offleaf_share(nodes, n_leaf)
    crossing = x > 0
    o = np.asarray(oversubscription, dtype=float)
    uplink = np.minimum(1.0, 1.0 / np.maximum(o * x, 1e-12))
    return np.where(crossing, spine_efficiency * uplink, 1.0)


def allreduce_factor(nodes, n_leaf, oversubscription, spine_efficiency) -> np.ndarray:
    """All-reduce (and the other collectives of a step's node bandwidth): :func:`collective_factor`."""
    return collective_factor(nodes, n_leaf, oversubscription, spine_efficiency)


def alltoall_factor(nodes, n_leaf, oversubscription, spine_efficiency) -> np.ndarray:
    """All-to-all (MoE dispatch and combine), the same rule: every pair of a rail is a flow, so
    the even spread over peers is exact here. A per-fabric all-to-all efficiency under one switch
    (NCCL's one-NIC-per-GPU ceiling, kernels) is a separate input and multiplies this."""
    return collective_factor(nodes, n_leaf, oversubscription, spine_efficiency)
