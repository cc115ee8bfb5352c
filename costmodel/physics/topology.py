"""Bill of materials of a non-blocking folded-Clos (fat-tree) fabric, from the switch radix.

All functions take numpy arrays that broadcast together and return arrays of the broadcast
shape; integers are returned as float64 so the whole model stays in one dtype.

References
----------
.. [1] C.E. Leiserson, "Fat-trees: universal networks for hardware-efficient supercomputing",
   IEEE Trans. Computers C-34(10), 1985.
.. [2] M. Al-Fares, A. Loukissas, A. Vahdat, "A scalable, commodity data center network
   architecture", SIGCOMM 2008 (k-ary fat tree: k^3/4 hosts with three tiers).
"""

from __future__ import annotations

import numpy as np

#: enough for any bounded input: 4-port switches (the registry's least radix) under 1.6 M NIC ports
MAX_TIERS = 40


def tiers(endpoints: np.ndarray, radix: np.ndarray) -> np.ndarray:
    """Switch tiers needed for ``endpoints`` NIC ports with ``radix``-port switches [count].

    One switch while ``E <= k``; otherwise the smallest ``t`` with ``E <= 2 (k/2)^t``
    (two tiers hold ``k^2/2`` endpoints, three ``k^3/4``, ...).

    >>> tiers(np.array([64., 65., 2048., 2049.]), np.array(64.)).tolist()
    [1.0, 2.0, 2.0, 3.0]
    """
    e = np.asarray(endpoints, dtype=float)
    half = np.asarray(radix, dtype=float) / 2.0
    t = np.where(e > 2.0 * half, 2.0, 1.0)
    for level in range(3, MAX_TIERS + 1):
        more = e > 2.0 * half ** (level - 1)
        if not more.any():
            break
        t = t + more
    return t


def bill_of_materials(endpoints: np.ndarray, radix: np.ndarray) -> dict[str, np.ndarray]:
    """Switches, links and transceivers of a non-blocking fat tree.

    Parameters
    ----------
    endpoints : NIC ports to connect, ``E = nodes × NICs per node`` [count]
    radix : ports per switch ``k`` [count]

    Returns
    -------
    dict with ``tiers``, ``switches``, ``node_links`` (node-to-leaf DAC/AOC cables),
    ``switch_links`` (switch-to-switch fibre links) and ``transceivers`` (two per switch link),
    all [count].

    Notes
    -----
    With ``t >= 2`` tiers every tier below the top has ``ceil(E / (k/2))`` switches (half the
    ports down, half up) and the top tier ``ceil(E / k)`` (all ports down); each tier boundary
    carries ``E`` links, so ``switch_links = (t - 1) E``.

    >>> bom = bill_of_materials(np.array(256.), np.array(64.))
    >>> [float(bom[k]) for k in ("tiers", "switches", "switch_links", "transceivers")]
    [2.0, 12.0, 256.0, 512.0]
    """
    e, k = np.broadcast_arrays(np.asarray(endpoints, dtype=float), np.asarray(radix, dtype=float))
    t = tiers(e, k)
    multi = t > 1
    switches = np.where(multi, (t - 1.0) * np.ceil(e / (k / 2.0)) + np.ceil(e / k), 1.0)
    switch_links = (t - 1.0) * e
    return {
        "tiers": t,
        "switches": switches,
        "node_links": e.copy(),
        "switch_links": switch_links,
        "transceivers": 2.0 * switch_links,
    }
