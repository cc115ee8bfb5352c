"""The scale-up domain of a scenario: the GPUs that share NVLink / Infinity Fabric / UB, as opposed to
the server or compute tray (``cluster.gpus_per_node``: what is bought, powered and racked).

A domain is one server (8 on an HGX or OAM baseboard) or several whole servers (an NVL72 rack: 18 trays
of 4 GPUs). ``cluster.scaleup_domain_gpus`` left empty takes the GPU's catalog domain where that is a
rack-scale domain (larger than the reference server) holding whole servers of the scenario's size;
otherwise the domain is the server, so a scenario without the field keeps its results.
"""

from __future__ import annotations

from costmodel.catalog.loader import GpuSpec
from costmodel.errors import FieldError

FIELD = "cluster.scaleup_domain_gpus"


def domain_gpus(value: int | float | None, g: float, spec: GpuSpec) -> float:
    """GPUs in one scale-up domain [count]: ``value`` where set, else the catalog's rack-scale domain
    when it is a multiple of the ``g`` GPUs of a server, else ``g`` (the server is the domain).

    >>> from costmodel.catalog.loader import load_catalog
    >>> domain_gpus(None, 8, load_catalog().gpus["h100"]), domain_gpus(72, 4, load_catalog().gpus["b200"])
    (8.0, 72.0)
    """
    if value is not None:
        return float(value)
    d, server = spec.scaleup_domain_gpus.typical, spec.default_gpus_per_node.typical
    return float(d) if d > server and d % g == 0 else float(g)


def check(value: int | None, g: int) -> None:
    """Refuse a domain that is not the server's ``g`` GPUs or a whole number of servers (FieldError)."""
    if value is None or (value >= g and value % g == 0):
        return
    raise FieldError(FIELD, f"must be the {g} GPUs of a server or a multiple of them (at most 384)",
                     "domain_not_multiple", g=str(g))
