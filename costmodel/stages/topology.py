"""Stage 1, topology: endpoints and the bill of materials of the fat tree."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import topology as fat_tree
from ..inputs import Inputs


@dataclass(frozen=True)
class Topology:
    """Counts of the fabric, each ``(S, F)`` [count]."""

    endpoints: np.ndarray
    tiers: np.ndarray
    hops: np.ndarray  # switch hops of the longest path
    switches: np.ndarray
    node_links: np.ndarray
    switch_links: np.ndarray
    transceivers: np.ndarray


def topology(p: Inputs) -> Topology:
    """Endpoints, tiers, hops, switches, links and transceivers of a non-blocking fat tree.

    Parameters
    ----------
    p : Inputs
        Broadcast inputs; reads ``nodes``, ``nics_per_node`` [count] and ``switch_radix`` [ports].

    Returns
    -------
    Topology

    Notes
    -----
    ``E = N r`` endpoints; tiers, switches and links from :func:`costmodel.topology.bill_of_materials`;
    the longest path crosses ``2 t − 1`` switches.

    References
    ----------
    .. [1] M. Al-Fares, A. Loukissas, A. Vahdat, "A scalable, commodity data center network
       architecture", SIGCOMM 2008.
    """
    endpoints = p.nodes * p.nics_per_node
    bom = fat_tree.bill_of_materials(endpoints, p.switch_radix)
    return Topology(
        endpoints=endpoints, tiers=bom["tiers"], hops=2.0 * bom["tiers"] - 1.0,
        switches=bom["switches"], node_links=bom["node_links"], switch_links=bom["switch_links"],
        transceivers=bom["transceivers"],
    )
