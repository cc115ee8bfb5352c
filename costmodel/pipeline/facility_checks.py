"""What the facility cannot hold: a GPU sold only liquid-cooled on an air-cooled site, a server that
alone draws more than the site's rack power limit. Each check names the fields and the numbers; the
pages and the report word them (zh and en)."""

from __future__ import annotations

from dataclasses import dataclass

from costmodel.catalog.loader import Catalog, load_catalog
from costmodel.physics import racks
from costmodel.scenario import scaleup
from costmodel.scenario.schema import Scenario

W_PER_KW = 1000.0


@dataclass(frozen=True)
class RackPlan:
    """The cluster in racks: one server's peak power [kW], servers per rack and compute racks [count]."""

    server_kw: float
    servers_per_rack: int
    racks: int
    limit_kw: float


@dataclass(frozen=True)
class FacilityWarning:
    """One finding: ``code`` (``needs_liquid`` or ``server_over_limit``), the field to change, the numbers."""

    code: str
    field: str
    numbers: dict[str, float | str]


def rack_plan(scenario: Scenario, catalog: Catalog | None = None) -> RackPlan:
    """Servers per rack and racks of the scenario's typical figures (the model's
    :class:`~costmodel.pipeline.stages.topology.Topology` computes the same per row)."""
    cat = catalog or load_catalog()
    c = scenario.cluster
    gpu = cat.gpus[c.gpu]
    g = c.gpus_per_node or gpu.default_gpus_per_node.typical
    host = gpu.host_power_kw.typical if c.host_power_kw is None else c.host_power_kw
    tdp = (scenario.overrides.gpus.get(c.gpu) or {}).get("tdp_w", gpu.tdp_w.typical) / W_PER_KW
    kw = float(racks.server_kw(g, tdp, host))
    limit = scenario.facility.rack_power_limit_kw
    per = racks.servers_per_rack(c.nodes_per_rack, limit, kw)
    return RackPlan(kw, int(per), int(racks.racks(c.nodes, per)), float(limit))


@dataclass(frozen=True)
class ClusterFacts:
    """What a customer's documents say of the 2026 cluster fields, as the model uses them.

    ``domain_gpus`` GPUs per scale-up domain [count] (``domain_set``: the scenario sets it, else the GPU's
    reference design), ``gpus_per_node`` [count]; ``cooling`` ``air`` or ``liquid`` and whether it is
    ``built`` for the cluster (costed) or in place; ``pue`` [ratio] and whether it ``pue_follows_cooling``
    (the scenario leaves it empty); the site's ``rack_power_limit_kw`` [kW], ``servers_per_rack`` and
    compute ``racks`` [count] (:func:`rack_plan`)."""

    domain_gpus: int
    domain_set: bool
    gpus_per_node: int
    cooling: str
    built: bool
    pue: float
    pue_follows_cooling: bool
    rack_power_limit_kw: float
    servers_per_rack: int
    racks: int

    @property
    def rack_scale(self) -> bool:
        """Whether a scale-up domain spans more than one server (an NVL72 rack, a CloudMatrix)."""
        return self.domain_gpus > self.gpus_per_node


def cluster_facts(scenario: Scenario, catalog: Catalog | None = None) -> ClusterFacts:
    """The scale-up domain, the cooling, the PUE used and the racks of ``scenario`` (the figures the
    pipeline's inputs take: :func:`costmodel.scenario.scaleup.domain_gpus`, the cooling's typical PUE)."""
    cat = catalog or load_catalog()
    c, fa = scenario.cluster, scenario.facility
    gpu = cat.gpus[c.gpu]
    g = int(c.gpus_per_node or gpu.default_gpus_per_node.typical)
    plan = rack_plan(scenario, cat)
    pue = cat.cooling[fa.cooling].pue.typical if fa.pue is None else fa.pue
    return ClusterFacts(domain_gpus=int(scaleup.domain_gpus(c.scaleup_domain_gpus, g, gpu)),
                        domain_set=c.scaleup_domain_gpus is not None, gpus_per_node=g, cooling=fa.cooling,
                        built=bool(fa.build_cooling), pue=float(pue), pue_follows_cooling=fa.pue is None,
                        rack_power_limit_kw=plan.limit_kw, servers_per_rack=plan.servers_per_rack, racks=plan.racks)


def warnings(scenario: Scenario, catalog: Catalog | None = None) -> list[FacilityWarning]:
    """The facility's warnings for ``scenario``, most serious first (empty when it fits)."""
    cat = catalog or load_catalog()
    gpu = cat.gpus[scenario.cluster.gpu]
    out = []
    if gpu.cooling_required == "liquid" and scenario.facility.cooling != "liquid":
        out.append(FacilityWarning("needs_liquid", "facility.cooling", {"gpu": gpu.name}))
    plan = rack_plan(scenario, cat)
    if plan.server_kw > plan.limit_kw:
        out.append(FacilityWarning("server_over_limit", "facility.rack_power_limit_kw",
                                   {"server_kw": plan.server_kw, "limit_kw": plan.limit_kw}))
    return out
