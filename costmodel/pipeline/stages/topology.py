"""Stage 1, topology: the rail-optimised fabric, its link media and its bill of materials."""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from costmodel.physics import media, racks, rails
from costmodel.pipeline.inputs import Inputs

#: Keys of :attr:`Topology.bom`, each an ``(S, F)`` count of units installed or, for the
#: ``spare_*`` keys, of spares bought on top of them.
BOM_KEYS = (
    "nics", "leaf_switches", "spine_switches", "core_switches",
    "node_dac", "node_aec", "node_aoc", "node_fibre",
    "switch_dac", "switch_aec", "switch_aoc", "switch_fibre",
    "transceivers", "switch_modules", "node_modules",
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
    transceivers: np.ndarray  # optical modules installed, switch and server side [count]
    switch_modules: np.ndarray  # optical modules installed in switch cages [count]
    node_modules: np.ndarray  # optical modules installed in server NICs [count]
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
    transceivers_bought: np.ndarray  # optical modules with spares, both sides [count]
    switch_modules_bought: np.ndarray  # switch-side modules with spares [count]
    node_modules_bought: np.ndarray  # server-side modules with spares [count]
    bom: MappingProxyType  # :data:`BOM_KEYS` → count installed, or spares [count]
    server_kw: np.ndarray  # peak power of one server [kW]
    servers_per_rack: np.ndarray  # under the site's rack power limit [count]
    racks: np.ndarray  # compute racks [count]


def _modules(p: Inputs, node_fibre: np.ndarray, switch_fibre: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Optical modules installed in switch cages and in servers [count]: a node link has one end in
    a leaf and one in a server, a switch link two ends in switches; ``⌈ends / ports⌉`` per side and tier."""
    in_switches = (media.modules(node_fibre, 1.0, p.switch_module_ports)
                   + media.modules(switch_fibre, 2.0, p.switch_module_ports))
    return in_switches, media.modules(node_fibre, 1.0, p.node_module_ports)


def _racks(p: Inputs) -> tuple[np.ndarray, np.ndarray]:
    """One server's peak power ``g · TDP + P_host`` [kW] and servers per rack ``min(nodes_per_rack,
    ⌊rack_power_limit_kw / P_server⌋)``, at least one [count] (:mod:`costmodel.physics.racks`); the
    node links' rack layout uses the latter."""
    server_kw = racks.server_kw(p.gpus_per_node, p.gpu_tdp_kw, p.host_power_kw)
    return server_kw, racks.servers_per_rack(p.nodes_per_rack, p.rack_power_limit_kw, server_kw)


def topology(p: Inputs) -> Topology:
    """Rail-optimised leaves, tiers above, media by length and the bill of materials.

    Parameters
    ----------
    p : Inputs
        Broadcast inputs; reads ``nodes``, ``nics_per_node`` (rails) [count], ``switch_radix``
        [ports], ``oversubscription`` [ratio], the racks' inputs (:func:`_racks`), the layout
        (``rack_pitch_m``, ``row_pitch_m``, ``racks_per_row``, ``vertical_run_m``,
        ``service_loop_m``), the media reaches ``dac_reach_m``, ``aec_reach_m``, ``aoc_reach_m``
        [m], the reference design's optics (``node_optical``, ``switch_module_ports``,
        ``node_module_ports`` [links per module]), the spare fractions ``spare_*_frac`` [0-1].

    Returns
    -------
    Topology

    Notes
    -----
    Switches and links from :func:`costmodel.physics.rails.rail_fabric`; the longest path crosses ``2 t − 1`` switches.
    Node links by class from :func:`costmodel.physics.media.node_link_classes`, or all fibre where the fabric's
    reference design cables them as optics (:func:`costmodel.physics.media.optical_node_links`); switch links all of
    :func:`costmodel.physics.media.switch_link_length`, copper or fibre (:func:`costmodel.physics.media.switch_reach`).
    A fibre link has an optical module at each end; modules = links × ends ÷ ports per module, rounded up per side
    (:func:`costmodel.physics.media.modules`): node links ``⌈F_n / p_sw⌉`` in the leaves and ``⌈F_n / p_node⌉`` in the
    servers, switch links ``⌈2 F_s / p_sw⌉``; DAC, active copper and AOC none. Bought = installed + spares, the spares
    ``installed × fraction`` rounded to the nearest unit per item (:func:`costmodel.physics.media.with_spares`):
    switches (per tier), DAC, AEC and AOC cables (spare_cable_frac), optical modules per side (spare_optic_frac). NICs
    have no spares here (they are part of the servers).

    References
    ----------
    .. [1] NVIDIA, "DGX SuperPOD Reference Architecture — DGX H100 — Network Fabrics", 2023.
    .. [2] NVIDIA, "Cable Management Guidelines and FAQ", 2023.
    """
    fab = rails.rail_fabric(p.nodes, p.nics_per_node, p.switch_radix, p.oversubscription)
    server_kw, npr = _racks(p)
    layout = media.Layout(p.rack_pitch_m, p.row_pitch_m, p.racks_per_row, p.vertical_run_m, p.service_loop_m)
    reach = {"dac": p.dac_reach_m, "aec": p.aec_reach_m, "aoc": p.aoc_reach_m}
    node = media.optical_node_links(
        media.node_link_classes(p.nodes, p.nics_per_node, fab["group_nodes"], npr, reach, layout),
        p.node_optical)
    sw_m = media.switch_link_length(p.nodes, fab["group_nodes"], npr, layout)
    sw = media.classify(fab["switch_links"], sw_m, media.switch_reach(reach))
    links = {c: node[c] + sw[c] for c in media.CLASSES}
    sw_mod, node_mod = _modules(p, node["fibre"], sw["fibre"])
    xcvr = sw_mod + node_mod
    buy = media.with_spares
    tiers_bought = {t: buy(fab[t], p.spare_switch_frac) for t in ("leaves", "spines", "cores")}
    cables_bought = {c: buy(links[c], p.spare_cable_frac) for c in ("dac", "aec", "aoc")}
    sw_mod_bought, node_mod_bought = buy(sw_mod, p.spare_optic_frac), buy(node_mod, p.spare_optic_frac)
    xcvr_bought = sw_mod_bought + node_mod_bought
    switches_bought = sum(tiers_bought.values())
    bom = {
        "nics": fab["endpoints"],
        "leaf_switches": fab["leaves"],
        "spine_switches": fab["spines"],
        "core_switches": fab["cores"],
        **{f"node_{c}": node[c] for c in media.CLASSES},
        **{f"switch_{c}": sw[c] for c in media.CLASSES},
        "transceivers": xcvr,
        "switch_modules": sw_mod,
        "node_modules": node_mod,
        "spare_switches": switches_bought - fab["switches"],
        **{f"spare_{c}": cables_bought[c] - links[c] for c in ("dac", "aec", "aoc")},
        "spare_transceivers": xcvr_bought - xcvr,
    }
    return Topology(
        endpoints=fab["endpoints"], tiers=fab["tiers"], hops=2.0 * fab["tiers"] - 1.0,
        switches=fab["switches"], node_links=fab["endpoints"], switch_links=fab["switch_links"],
        transceivers=xcvr, switch_modules=sw_mod, node_modules=node_mod,
        oversubscription=np.asarray(p.oversubscription, dtype=float),
        leaves=fab["leaves"], uplinks=fab["uplinks"], switch_link_m=sw_m,
        links=MappingProxyType(links), switches_bought=switches_bought,
        copper_bought=cables_bought["dac"] + cables_bought["aec"], dac_bought=cables_bought["dac"],
        aec_bought=cables_bought["aec"], aoc_bought=cables_bought["aoc"],
        transceivers_bought=xcvr_bought, switch_modules_bought=sw_mod_bought,
        node_modules_bought=node_mod_bought, bom=MappingProxyType(bom), server_kw=server_kw,
        servers_per_rack=npr, racks=racks.racks(p.nodes, npr))
