"""The priced bill of materials: every item of the network capex with its count and unit price.

Each line is a term of the money ledger's network capex (:mod:`costmodel.money.ledger`: ``capex_nics``,
``capex_switches``, ``capex_links``, ``capex_install``, ``capex_frontend``), so the lines of a
fabric add up to its network capex. Reused switches (``cluster.reuse_existing_switches``) are a
line of their own at no price: they are installed, draw power and are under support, but not
bought. The yearly running costs of the network (licences and support, maintenance, staff) are
listed beside it (:data:`RUNNING`).

All arrays broadcast to ``(S, F)``; money in the price book's currency.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

#: Lines of the bill of materials, in the order of a quote: (key, count driver, unit price name).
#: ``None`` as the price name: listed at no price. Count drivers are :mod:`costmodel.money.ledger` names.
LINES: tuple[tuple[str, str, str | None], ...] = (
    ("nics", "endpoints", "nic_price"),
    ("switches", "new_switches", "switch_price"),
    ("reused_switches", "reused_switches", None),
    ("dac", "dac_cables", "cable_price"),
    ("aec", "aec_cables", "aec_price"),
    ("aoc", "aoc_cables", "aoc_price"),
    ("switch_modules", "switch_modules", "optic_price"),
    ("node_modules", "node_modules", "node_module_price"),
    ("fibre", "fibre_links", "fibre_price"),
    ("install_nodes", "nodes", "install_per_node"),
    ("install_links", "links", "install_per_link"),
    ("frontend", "frontend_nodes", "frontend_per_node"),
)
#: Lines counting optical modules; their module type is named beside them (``FabricResult.modules``).
MODULE_LINES: tuple[str, ...] = ("switch_modules", "node_modules")
#: The facility's line shown after the network's bill (not part of its total): the cooling built for the
#: cluster, peak IT power [kW] × capex per kW (ledger ``cooling_capex``; count 0 when not built).
FACILITY_LINES: tuple[tuple[str, str, str], ...] = (("cooling", "cooled_kw", "cooling_capex_per_kw"),)
#: Yearly running costs of the network shown with the bill: ledger parts [currency/year].
RUNNING: tuple[str, ...] = ("network_support", "network_maintenance", "network_staff")


@dataclass(frozen=True)
class Line:
    """One priced item: ``count`` [units] × ``unit_price`` [currency] = ``extended`` [currency], ``(S, F)``."""

    key: str
    count: np.ndarray
    unit_price: np.ndarray
    extended: np.ndarray


def priced(drivers: Mapping[str, np.ndarray | float], env: Mapping[str, np.ndarray | float],
           shape: tuple[int, ...]) -> dict[str, Line]:
    """Every line of :data:`LINES`, counts from ``drivers`` (the ledger's), prices from ``env``
    (the inputs), broadcast to ``shape``. A server-side optical module costs the switch-side one's
    price per port: ``node_module_price = optic_price × module_port_ratio``.

    >>> d = {"endpoints": 8., "switches": 2., "reused_switches": 2., "dac_cables": 8., "aec_cables": 0.,
    ...      "aoc_cables": 0., "switch_modules": 0., "node_modules": 0., "module_port_ratio": 0.5,
    ...      "fibre_links": 0., "links": 8., "frontend_nodes": 8.}
    >>> env = {"nodes": 8., "nic_price": 900., "switch_price": 18000., "cable_price": 120., "aec_price": 250.,
    ...        "aoc_price": 200., "optic_price": 150., "fibre_price": 40., "install_per_node": 250.,
    ...        "install_per_link": 25., "frontend_per_node": 1500.}
    >>> lines = priced(d, env, (1, 1))
    >>> float(lines["switches"].extended[0, 0]), float(lines["reused_switches"].count[0, 0])
    (0.0, 2.0)
    >>> float(sum(x.extended for x in lines.values())[0, 0])  # 7200 + 960 + 2000 + 200 + 12000
    22360.0
    """
    counts = dict(drivers) | {"nodes": env["nodes"],
                              "new_switches": np.asarray(drivers["switches"]) - np.asarray(drivers["reused_switches"])}
    node_price = np.asarray(env["optic_price"]) * np.asarray(drivers["module_port_ratio"])
    prices = dict(env) | {"node_module_price": node_price}
    out = {}
    for key, count_name, price_name in LINES:
        count = np.broadcast_to(np.asarray(counts[count_name], dtype=float), shape)
        unit = np.broadcast_to(np.asarray(0.0 if price_name is None else prices[price_name], dtype=float), shape)
        out[key] = Line(key, count, unit, count * unit)
    return out


def running(amounts: Mapping[str, np.ndarray], env: Mapping[str, np.ndarray | float],
            shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    """The network's yearly running costs [currency/year], ``(S, F)``: licences and software support
    (``network_support``), the maintenance share of network capex and network staff (floor and per
    node, × the fabric's ops factor)."""
    staff = np.asarray(env["ops_factor"]) * (np.asarray(env["network_staff_fte"]) * env["staff_cost_per_fte_year"]
                                             + np.asarray(env["nodes"]) * env["network_ops_per_node_year"])
    return {
        "network_support": np.broadcast_to(amounts["network_support"], shape),
        "network_maintenance": np.broadcast_to(np.asarray(env["maintenance_frac"]) * amounts["network_capex"], shape),
        "network_staff": np.broadcast_to(staff, shape),
    }


def facility(drivers: Mapping[str, np.ndarray | float], env: Mapping[str, np.ndarray | float],
             shape: tuple[int, ...]) -> dict[str, Line]:
    """The lines of :data:`FACILITY_LINES`, counts from ``drivers``, prices from ``env``, broadcast to ``shape``;
    the cooling line's extended price is the ledger's ``cooling_capex``.

    >>> float(facility({"cooled_kw": 100.0}, {"cooling_capex_per_kw": 2000.0}, (1, 1))["cooling"].extended[0, 0])
    200000.0
    """
    out = {}
    for key, count_name, price_name in FACILITY_LINES:
        count = np.broadcast_to(np.asarray(drivers[count_name], dtype=float), shape)
        unit = np.broadcast_to(np.asarray(env[price_name], dtype=float), shape)
        out[key] = Line(key, count, unit, count * unit)
    return out
