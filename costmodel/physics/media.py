"""Link media chosen by length from a simple rack layout: DAC, active copper, AOC or fibre.

The layout (``data/media.yaml``, ``layout``): a rail group's nodes stand in racks of
``nodes_per_rack`` on both sides of the network rack that holds its leaves; a node link is
``2 (vertical + loop) + j × rack pitch`` long for a rack ``j`` racks away. Spines and cores stand
at the centre of the hall and every switch link is bought at the farthest leaf's length. A link
takes the first class whose reach covers it: DAC, then active copper (AEC), then AOC, else two
transceivers and fibre. Switch links beyond copper reach run through structured cabling (patch
panels), where an AOC cannot go: they take transceivers and fibre (:func:`switch_reach`).

All functions take numpy arrays that broadcast together and return arrays of the broadcast shape.

References
----------
.. [1] NVIDIA, "Cable Management Guidelines and FAQ", 2023 (DAC 2–5 m, AOC 3 to ~100 m).
.. [2] NVIDIA, "DGX SuperPOD Reference Architecture — DGX H100", 2023; SHKE, "Understanding
   SuperPOD construction" (32 nodes in 8 racks around a central rack of 8 leaves).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CLASSES = ("dac", "aec", "aoc", "fibre")
_EPS = 1e-9


@dataclass(frozen=True)
class Layout:
    """Rack layout constants [m] and racks per row [count] (see ``data/media.yaml``)."""

    rack_pitch_m: float
    row_pitch_m: float
    racks_per_row: float
    vertical_run_m: float
    service_loop_m: float

    @property
    def fixed_m(self) -> float:
        """Length every link has before it leaves its rack: both ends' vertical run and loop [m]."""
        return 2.0 * (self.vertical_run_m + self.service_loop_m)

    @classmethod
    def from_catalog(cls, catalog=None) -> Layout:
        from costmodel.catalog.loader import load_catalog

        lay = (catalog or load_catalog()).layout
        return cls(**{name: getattr(lay, name).typical for name in type(lay).model_fields})


def nodes_within(nodes: np.ndarray, reach_m: np.ndarray, nodes_per_rack: np.ndarray,
                 layout: Layout) -> np.ndarray:
    """Nodes of one rail group whose link to the central network rack is at most ``reach_m`` [count].

    The group's ``⌈n / nodes_per_rack⌉`` racks alternate left and right of the network rack,
    nearest first, all full but the farthest.

    >>> lay = Layout(0.6, 2.4, 20, 1.0, 0.5)  # links of 3.6, 4.2, 4.8, 5.4 m
    >>> nodes_within(np.array(32.), np.array([3.0, 4.5, 5.0, 6.0]), np.array(4.), lay).tolist()
    [0.0, 16.0, 24.0, 32.0]
    """
    n, x, npr = (np.asarray(a, dtype=float) for a in (nodes, reach_m, nodes_per_rack))
    racks = np.ceil(n / npr - _EPS)
    left, right = np.ceil(racks / 2.0), np.floor(racks / 2.0)
    steps = np.floor((x - layout.fixed_m) / layout.rack_pitch_m + _EPS)
    steps = np.maximum(steps, 0.0)
    racks_in = np.minimum(steps, left) + np.minimum(steps, right)
    return np.minimum(n, racks_in * npr)


def node_link_classes(nodes: np.ndarray, rails: np.ndarray, group_nodes: np.ndarray,
                      nodes_per_rack: np.ndarray, reach: dict[str, np.ndarray],
                      layout: Layout) -> dict[str, np.ndarray]:
    """Node-to-leaf links per media class [count].

    Parameters
    ----------
    nodes, rails : servers and NICs per server [count]
    group_nodes : nodes per rail group (one network rack of leaves), :func:`costmodel.physics.rails.rail_fabric`
    nodes_per_rack : servers per compute rack [count]
    reach : ``dac``, ``aec``, ``aoc`` maximum length [m]
    layout : rack layout

    Returns
    -------
    dict ``dac``, ``aec``, ``aoc``, ``fibre`` [count]; they sum to ``nodes × rails``.

    Notes
    -----
    ``⌊N / g⌋`` full groups of ``g`` nodes and one of the rest; links within reach ``x`` =
    ``r (⌊N/g⌋ w(g, x) + w(N mod g, x))`` with ``w`` :func:`nodes_within`.
    """
    n, r, g = (np.asarray(a, dtype=float) for a in (nodes, rails, group_nodes))
    full = np.floor(n / g + _EPS)
    rest = n - full * g

    def within(x: np.ndarray) -> np.ndarray:
        return r * (full * nodes_within(g, x, nodes_per_rack, layout)
                    + nodes_within(rest, x, nodes_per_rack, layout))

    w_dac, w_aec, w_aoc = within(reach["dac"]), within(reach["aec"]), within(reach["aoc"])
    return {"dac": w_dac, "aec": w_aec - w_dac, "aoc": w_aoc - w_aec, "fibre": n * r - w_aoc}


def switch_link_length(nodes: np.ndarray, group_nodes: np.ndarray, nodes_per_rack: np.ndarray,
                       layout: Layout) -> np.ndarray:
    """Length of every switch-to-switch link: centre of the hall to its farthest rack [m].

    Racks: ``⌈N / nodes_per_rack⌉`` compute racks plus one network rack per rail group, in rows of
    ``racks_per_row``; length ``= fixed + row length / 2 + rows × row pitch / 2``.

    >>> lay = Layout(0.6, 2.4, 20, 1.0, 0.5)
    >>> float(switch_link_length(np.array(128.), np.array(32.), np.array(4.), lay))  # 36 racks, 2 rows
    11.4
    """
    n, g, npr = (np.asarray(a, dtype=float) for a in (nodes, group_nodes, nodes_per_rack))
    racks = np.ceil(n / npr - _EPS) + np.ceil(n / g - _EPS)
    per_row = np.minimum(racks, layout.racks_per_row)
    rows = np.ceil(racks / layout.racks_per_row - _EPS)
    return layout.fixed_m + per_row * layout.rack_pitch_m / 2.0 + rows * layout.row_pitch_m / 2.0


def classify(count: np.ndarray, length_m: np.ndarray, reach: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``count`` links all of ``length_m`` put in their class: dict ``dac``, ``aec``, ``aoc``, ``fibre``."""
    c, x = np.asarray(count, dtype=float), np.asarray(length_m, dtype=float)
    dac = x <= reach["dac"] + _EPS
    aec = ~dac & (x <= reach["aec"] + _EPS)
    aoc = ~dac & ~aec & (x <= reach["aoc"] + _EPS)
    fibre = ~(dac | aec | aoc)
    return {name: np.where(mask, c, 0.0) for name, mask in zip(CLASSES, (dac, aec, aoc, fibre), strict=True)}


def switch_reach(reach: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Reaches for switch-to-switch links: no AOC class (structured cabling through patch panels,
    as NVIDIA's structured-cabling requirements and SuperPOD leaf–spine cabling assume)."""
    return {"dac": reach["dac"], "aec": reach["aec"], "aoc": reach["aec"]}


def optical_node_links(classes: dict[str, np.ndarray], optical: np.ndarray) -> dict[str, np.ndarray]:
    """Node links per media class where the reference design cables every node link as optics
    (``optical`` 1: all links of ``classes`` become fibre) or each by its length (``optical`` 0)."""
    opt = np.asarray(optical, dtype=float) > 0.5
    total = sum(np.asarray(classes[c], dtype=float) for c in CLASSES)
    return {c: np.where(opt, total if c == "fibre" else 0.0, classes[c]) for c in CLASSES}


def modules(links: np.ndarray, ends: float | np.ndarray, ports: np.ndarray) -> np.ndarray:
    """Optical modules on one side of a tier: ``⌈links × ends / ports⌉`` [count], ``ends`` the
    module ends per link on that side (1 on each side of a node link, 2 for switch-to-switch links
    bought from the same module type) and ``ports`` the links one module serves (2 for a twin-port
    800G OSFP, 4 for a 400G module in 4 × 100G breakout).

    >>> modules(np.array([1024., 1023., 0.]), 2.0, np.array(2.)).tolist()
    [1024.0, 1023.0, 0.0]
    >>> modules(np.array(1023.), 1.0, np.array([1., 2., 4.])).tolist()
    [1023.0, 512.0, 256.0]
    """
    x = np.asarray(links, dtype=float) * np.asarray(ends, dtype=float) / np.asarray(ports, dtype=float)
    return np.ceil(x - _EPS) + 0.0


def with_spares(count: np.ndarray, spare_frac: np.ndarray) -> np.ndarray:
    """Units bought: ``count + ⌊count × spare + ½⌋`` [count], the spares rounded to the nearest
    unit (on-site stock; replacements under the support contract are in ``maintenance_frac``).

    >>> with_spares(np.array([100., 25., 24., 1., 0.]), np.array(0.02)).tolist()
    [102.0, 26.0, 24.0, 1.0, 0.0]
    """
    c = np.asarray(count, dtype=float)
    return c + np.floor(c * np.asarray(spare_frac, dtype=float) + 0.5 + _EPS) + 0.0
