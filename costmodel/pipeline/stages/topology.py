"""Stage 1, topology: the rail-optimised fabric, its link media and its bill of materials."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from costmodel.physics import media, rails
from costmodel.pipeline.inputs import Inputs

#: Keys of :attr:`Topology.bom`, each an ``(S, F)`` count of units installed or, for the
#: ``spare_*`` keys, of spares bought on top of them.
BOM_KEYS = (
    "nics", "leaf_switches", "spine_switches", "core_switches",
    "node_dac", "node_aec", "node_aoc", "node_fibre",
    "switch_dac", "switch_aec", "switch_aoc", "switch_fibre",
    "transceivers",
    "spare_switches", "spare_dac", "spare_aec", "spare_aoc", "spare_transceivers",
)


@dataclass(frozen=True)
class Topology:
    """Counts of the fabric as installed (and, in ``bom`` and ``*_bought``, as bought), ``(S, F)``.

    ``hops`` (switches on the longest path) and ``oversubscription`` (leaf down- over uplinks,
    1 = non-blocking) are for the step-time model; this stage gives them no bandwidth effect.
    """

    endpoints: np.ndarray  # NIC ports E = N r [count]
    tiers: np.ndarray  # switch tiers [count]
    hops: np.ndarray  # switch hops of the longest path [count]
    switches: np.ndarray  # installed [count]
    node_links: np.ndarray  # node-to-leaf links [count]
    switch_links: np.ndarray  # switch-to-switch links [count]
    transceivers: np.ndarray  # installed, two per fibre link [count]
    oversubscription: np.ndarray  # leaf down- over uplinks [ratio]
    leaves: np.ndarray  # leaf switches [count]
    uplinks: np.ndarray  # leaf-to-spine links [count]
    switch_link_m: np.ndarray  # length of every switch link [m]
    links: MappingProxyType  # installed links per media class (dac, aec, aoc, fibre), node + switch [count]
    switches_bought: np.ndarray  # with spares [count]
    copper_bought: np.ndarray  # DAC and active copper cables with spares [count]
    dac_bought: np.ndarray  # passive DAC cables with spares [count]
    aec_bought: np.ndarray  # active copper cables with spares [count]
    aoc_bought: np.ndarray  # active optical cables with spares [count]
    transceivers_bought: np.ndarray  # with spares [count]
    bom: MappingProxyType  # :data:`BOM_KEYS` → count installed, or spares [count]


def topology(p: Inputs) -> Topology:
    """Rail-optimised leaves, tiers above, media by length and the bill of materials.

    Parameters
    ----------
    p : Inputs
        Broadcast inputs; reads ``nodes``, ``nics_per_node`` (rails) [count], ``switch_radix``
        [ports], ``oversubscription`` [ratio], ``nodes_per_rack`` [count], the layout
        (``rack_pitch_m``, ``row_pitch_m``, ``racks_per_row``, ``vertical_run_m``,
        ``service_loop_m``), the media reaches ``dac_reach_m``, ``aec_reach_m``, ``aoc_reach_m``
        [m] and the spare fractions ``spare_switch_frac``, ``spare_cable_frac``,
        ``spare_optic_frac`` [0-1].

    Returns
    -------
    Topology

    Notes
    -----
    Switches and links from :func:`costmodel.physics.rails.rail_fabric`; the longest path crosses
    ``2 t − 1`` switches. Node links by class from :func:`costmodel.physics.media.node_link_classes`,
    switch links all of :func:`costmodel.physics.media.switch_link_length`, copper or fibre
    (:func:`costmodel.physics.media.switch_reach`); a fibre link has two transceivers, DAC, active
    copper and AOC none. Bought = installed + spares, the spares
    ``installed × fraction`` rounded to the nearest unit per item (:func:`costmodel.physics.media.with_spares`):
    switches (per tier), DAC, AEC and AOC cables (spare_cable_frac), transceivers
    (spare_optic_frac). NICs have no spares here (they are part of the servers).

    References
    ----------
    .. [1] NVIDIA, "DGX SuperPOD Reference Architecture — DGX H100 — Network Fabrics", 2023.
    .. [2] NVIDIA, "Cable Management Guidelines and FAQ", 2023.
    """
    fab = rails.rail_fabric(p.nodes, p.nics_per_node, p.switch_radix, p.oversubscription)
    layout = media.Layout(p.rack_pitch_m, p.row_pitch_m, p.racks_per_row, p.vertical_run_m, p.service_loop_m)
    reach = {"dac": p.dac_reach_m, "aec": p.aec_reach_m, "aoc": p.aoc_reach_m}
    node = media.node_link_classes(p.nodes, p.nics_per_node, fab["group_nodes"], p.nodes_per_rack, reach, layout)
    sw_m = media.switch_link_length(p.nodes, fab["group_nodes"], p.nodes_per_rack, layout)
    sw = media.classify(fab["switch_links"], sw_m, media.switch_reach(reach))
    links = {c: node[c] + sw[c] for c in media.CLASSES}
    xcvr = 2.0 * links["fibre"]

    def buy(count: np.ndarray, frac: np.ndarray) -> np.ndarray:
        return media.with_spares(count, frac)

    tiers_bought = {t: buy(fab[t], p.spare_switch_frac) for t in ("leaves", "spines", "cores")}
    cables_bought = {c: buy(links[c], p.spare_cable_frac) for c in ("dac", "aec", "aoc")}
    xcvr_bought = buy(xcvr, p.spare_optic_frac)
    switches_bought = sum(tiers_bought.values())
    bom = {
        "nics": fab["endpoints"],
        "leaf_switches": fab["leaves"],
        "spine_switches": fab["spines"],
        "core_switches": fab["cores"],
        **{f"node_{c}": node[c] for c in media.CLASSES},
        **{f"switch_{c}": sw[c] for c in media.CLASSES},
        "transceivers": xcvr,
        "spare_switches": switches_bought - fab["switches"],
        **{f"spare_{c}": cables_bought[c] - links[c] for c in ("dac", "aec", "aoc")},
        "spare_transceivers": xcvr_bought - xcvr,
    }
    return Topology(
        endpoints=fab["endpoints"], tiers=fab["tiers"], hops=2.0 * fab["tiers"] - 1.0,
        switches=fab["switches"], node_links=fab["endpoints"], switch_links=fab["switch_links"],
        transceivers=xcvr, oversubscription=np.asarray(p.oversubscription, dtype=float),
        leaves=fab["leaves"], uplinks=fab["uplinks"], switch_link_m=sw_m,
        links=MappingProxyType(links), switches_bought=switches_bought,
        copper_bought=cables_bought["dac"] + cables_bought["aec"], dac_bought=cables_bought["dac"],
        aec_bought=cables_bought["aec"], aoc_bought=cables_bought["aoc"],
        transceivers_bought=xcvr_bought, bom=MappingProxyType(bom),
    )
