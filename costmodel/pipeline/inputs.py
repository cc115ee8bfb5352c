"""Turn a validated :class:`~costmodel.scenario.schema.Scenario` plus the catalog into model arrays.

The model never reads a scenario or a catalog directly: it reads an :class:`Inputs` — one
float64 array per quantity, in SI-like units — and a :class:`Structure` of the few choices
that change the shape of the computation. Scenario-level arrays have shape ``(S, 1)``,
fabric-level ones ``(1, F)``; a Monte Carlo batch or a sweep only changes ``S``.

Which array a scenario field or catalog quantity feeds, and the factor from its stored unit to
the model's, come from the registry of quantities (``data/quantities.yaml``, ``model``): a new
input that is a plain unit scaling needs its registry entry only (:class:`Inputs` gains its array).

``uncertain`` lists, for every quantity with a known range, its ``(low, typical, high)``
arrays; Monte Carlo and the tornado draw or swing exactly these.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from costmodel import quantities
from costmodel.catalog import regions
from costmodel.catalog.loader import Catalog, Quantity, load_catalog
from costmodel.physics import calibration, host_link, transformer
from costmodel.physics.performance import LOSS_MODEL_CODES, hidden_size
from costmodel.pipeline.facility_inputs import facility_arrays
from costmodel.pipeline.kernel_inputs import kernel_arrays
from costmodel.scenario import price_books, scaleup
from costmodel.scenario.schema import Scenario

GIGA = 1e9  # unit scaling of inputs lives in the registry (data/quantities.yaml, model.scale)
# the ZeRO stage of each parallelism choice: data parallel and pipeline shard the optimizer
# state (Megatron's distributed optimizer, ZeRO-1); FSDP shards everything (ZeRO-3); "best" is
# the layout search's (costmodel.physics.layout), which replaces the layout arrays per fabric
ZERO_STAGE = {"dp": 1, "pipeline": 1, "fsdp": 3, "best": 1}
#: The codes of the workload's precision in the model's ``precision_code`` array.
PRECISION_CODES = {"bf16": 0.0, "fp8": 1.0, "fp4": 2.0}


@dataclass(frozen=True)
class Structure:
    """Choices that are the same for every row of a batch."""

    horizon_years: int
    parallelism: str
    payment: str
    schedule: str
    scope: str
    fabric_ids: tuple[str, ...]
    families: tuple[str, ...]
    baseline_index: int
    currency: str
    measured: tuple[str | None, ...] = ()  # per fabric: the measurement's summary, None = catalog figures
    measured_alltoall: tuple[str | None, ...] = ()  # per fabric: the alltoall measurement's summary, or None


#: The arrays of :class:`Inputs` that are not a registry quantity: choices turned into numbers (1/0
#: flags, codes), the rack layout and the link media of each fabric's port rate (data/media.yaml), a
#: measurement's host count. Name → unit and shape; every other array is a registry entry's ``model``.
DERIVED: dict[str, str] = {
    "in_network_reduction": "1 = use the switches' all-reduce offload where a fabric has it, else 0; (S, 1)",
    "rack_pitch_m": "[m]; (1, 1)",
    "row_pitch_m": "[m]; (1, 1)",
    "racks_per_row": "[count]; (1, 1)",
    "vertical_run_m": "each end [m]; (1, 1)",
    "service_loop_m": "each end [m]; (1, 1)",
    "recompute": "1 = full activation recomputation, else 0; (S, 1)",
    "selective": "1 = selective recomputation (attention scores recomputed), else 0; (S, 1)",
    "scores": "1 = the attention scores are stored (no recomputation at all), else 0; (S, 1)",
    "dualpipe": "1 = DeepSeek's DualPipe schedule (two weight copies, p + 1 micro-batches), else 0; (S, 1)",
    "peak_ratio": "the workload precision's dense peak / the BF16 peak of the GPU [ratio]; (S, 1)",
    "precision_code": "0 = BF16, 1 = FP8, 2 = FP4 (see PRECISION_CODES); (S, 1)",
    "node_dedup": "1 = node-deduplicated expert dispatch; (S, 1)",
    "loss_model": "code, see performance.LOSS_MODEL_CODES; (1, F)",
    "dac_reach_m": "[m]; (1, F)",
    "aec_reach_m": "[m]; (1, F)",
    "aoc_reach_m": "[m]; (1, F)",
    "aec_power_w": "per active copper link [W]; (1, F)",
    "aoc_power_w": "per active optical cable [W]; (1, F)",
    "switch_module_ports": "links one switch-side optical module serves [count]; (1, F)",
    "node_module_ports": "links one server-side optical module serves [count]; (1, F)",
    "node_optical": "1 = node links are transceivers and fibre (the reference design), 0 = media by length; (1, F)",
    "sharp_capable": "1 = the switches reduce all-reduce data in the network (SHARPv3+), else 0; (1, F)",
    "frontend_network": "1 = cost the front-end / storage Ethernet (cluster scope), else 0; (S, 1)",
    "reuse_existing_switches": "1 = keep the Ethernet switches on site, else 0; (S, 1)",
    "build_cooling": "1 = cost the cooling built for the cluster (facility.build_cooling), else 0; (S, 1)",
    "ethernet": "1 = an Ethernet-family fabric (TCP, RoCE, iWARP), 0 = InfiniBand; (1, F)",
    "measured_hosts": "nodes of that measurement [count]; NaN = unknown; (1, F)",
    # the GPU's kernels (data/gemm_efficiency.yaml, costmodel/physics/gemm_efficiency.py), (1, 1)
    "gemm_share": "measured maximum matmul FLOP/s / peak [0-1]; (1, 1)",
    "gemm_sms": "streaming multiprocessors [count]; (1, 1)",
    "tile_m": "GEMM output tile rows [count]; (1, 1)",
    "tile_n": "GEMM output tile columns [count]; (1, 1)",
    "attn_share": "fused attention's share of peak [0-1]; (1, 1)",
    "hbm_Bps": "achievable memory bandwidth [B/s]; (1, 1)",
    "act_bytes_h": "bytes a layer stores per token per unit of width [B]; (1, 1)",
    "replicated_bytes_h": "of those, bytes each tensor rank holds whole without sequence parallelism [B]; (1, 1)",
    "score_bytes": "bytes per token, head and position of unfused attention scores [B]; (1, 1)",
    "passes_fwd": "memory passes over the stored activations in a forward [count]; (1, 1)",
    "passes_bwd": "memory passes in a backward [count]; (1, 1)",
    "fused_attention": "1 = fused (flash) attention, else 0; (S, 1)",
    "sequence_parallel": "1 = norms and dropouts split over the tensor ranks (sequence parallel), else 0; (S, 1)",
}


def _fields() -> dict[str, str]:
    """Every array of :class:`Inputs`, name → unit: the registry's model fields (file order), then
    :data:`DERIVED`."""
    out = {q.model.field: f"[{q.model.unit}]" for q in quantities.registry().values() if q.model is not None}
    clash = set(out) & set(DERIVED)
    if clash:
        raise ValueError(f"quantities.yaml model fields also derived in inputs.py: {sorted(clash)}")
    return {**out, **DERIVED}


def _replace(self, **changes: np.ndarray):
    """A copy with some arrays replaced."""
    return dataclasses.replace(self, **changes)


#: Model inputs as broadcastable float64 arrays, one per registry quantity that feeds the model
#: (``data/quantities.yaml`` ``model``) and one per :data:`DERIVED` entry: a frozen dataclass generated
#: here, so a new registry entry with a ``model`` link is a new array without an edit of this file.
Inputs = dataclasses.make_dataclass(
    "Inputs", [(name, np.ndarray) for name in _fields()], frozen=True,
    namespace={"replace": _replace, "__doc__": "Model inputs as broadcastable float64 arrays; units: "
               + "; ".join(f"``{k}`` {v}" for k, v in _fields().items())},
)
Inputs.__module__ = __name__


@dataclass
class Uncertain:
    """A quantity with a range: its name, label, unit, and (low, typical, high) arrays."""

    name: str
    label: str
    low: np.ndarray
    typical: np.ndarray
    high: np.ndarray
    per_fabric: bool


@dataclass
class Built:
    inputs: Inputs
    structure: Structure
    uncertain: list[Uncertain] = field(default_factory=list)


def _col(values) -> np.ndarray:
    return np.asarray(values, dtype=float).reshape(1, -1)


def _scalar(value: float) -> np.ndarray:
    return np.full((1, 1), float(value))


def _path(scenario: Scenario, path: str):
    """The value of a dotted scenario field, e.g. ``workload.model_params_b``."""
    obj = scenario
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _apply(item, changes: dict[str, float] | None):
    """A catalog item with some quantities overridden: typical = value, range collapsed."""
    if not changes:
        return item
    updated = {
        name: getattr(item, name).model_copy(update={"typical": value, "low": None, "high": None,
                                                       "source": "engineering-estimate",
                                                       "note": "overridden in this scenario"})
        for name, value in changes.items()
    }
    return item.model_copy(update=updated)


def _measured(item, eta: float, summary: str):
    """A fabric spec as its measurement gives it: efficiency ``eta`` (range collapsed) and no loss model."""
    eff = item.efficiency.model_copy(update={"typical": eta, "low": None, "high": None, "source": "nccl-tests-perf",
                                             "note": f"measured: {summary}"})
    return item.model_copy(update={"efficiency": eff, "loss_model": "none"})


def _measured_alltoall(item, eta: float, summary: str):
    """A fabric spec whose all-to-all efficiency is ``eta`` from an alltoall_perf measurement (range collapsed)."""
    a2a = item.alltoall_efficiency.model_copy(update={"typical": eta, "low": None, "high": None,
                                                      "source": "nccl-tests-alltoall",
                                                      "note": f"measured: {summary}"})
    return item.model_copy(update={"alltoall_efficiency": a2a})


class _Ranges:
    """Collects the catalog quantities read with a range (:class:`Uncertain`) while their typical
    values become the model's arrays."""

    def __init__(self) -> None:
        self.uncertain: list[Uncertain] = []

    def scalar(self, name: str, quantity: Quantity, scale: float = 1.0, override=None) -> np.ndarray:
        """A scenario-level quantity ``(1, 1)``; uncertain unless the user set it (``override``)."""
        if override is not None:
            return _scalar(override * scale)
        typ = _scalar(quantity.typical * scale)
        if quantity.lo != quantity.hi:
            self.uncertain.append(Uncertain(name, name, _scalar(quantity.lo * scale), typ,
                                            _scalar(quantity.hi * scale), per_fabric=False))
        return typ

    def column(self, name: str, items: list, attr: str, scale: float = 1.0) -> np.ndarray:
        """A fabric-level quantity ``(1, F)``, one column per fabric."""
        quants = [getattr(item, attr) for item in items]
        typ = _col([x.typical * scale for x in quants])
        if any(x.lo != x.hi for x in quants):
            self.uncertain.append(Uncertain(name, name, _col([x.lo * scale for x in quants]), typ,
                                            _col([x.hi * scale for x in quants]), per_fabric=True))
        return typ


def _measured_fabrics(scenario: Scenario, fab_specs: list, nics: float, g: float,
                      slot_gbps: float) -> tuple[list, list, list]:
    """The fabric specs with their measurements applied: an nccl-tests measurement replaces a fabric's
    efficiency (and loss model), an alltoall_perf measurement only its all-to-all efficiency, each as a
    share of the NIC's useful rate ``min(port, slot_gbps)`` [Gb/s] (the model applies it to that rate).
    Returns (specs, ring measurements, alltoall measurements), one per fabric (None = not measured)."""
    useful = [min(spec.port_gbps.typical, slot_gbps) for spec in fab_specs]
    measured = [scenario.measurements.get(f) for f in scenario.fabrics]
    fab_specs = [spec if m is None else _measured(spec, calibration.efficiency(m, rate, nics, g), m.summary)
                 for spec, m, rate in zip(fab_specs, measured, useful, strict=True)]
    measured_a2a = [scenario.alltoall_measurements.get(f) for f in scenario.fabrics]
    fab_specs = [spec if m is None else _measured_alltoall(
                     spec, calibration.alltoall_efficiency(m, rate, nics, g), m.summary)
                 for spec, m, rate in zip(fab_specs, measured_a2a, useful, strict=True)]
    return fab_specs, measured, measured_a2a


def _recompute_arrays(scenario: Scenario, gpu) -> dict[str, np.ndarray]:
    """Recomputation, schedule and precision as the model reads them, ``(1, 1)``: full recomputation
    (``full_recompute`` on overrides ``recompute``), selective, stored scores, DualPipe, the precision's
    code and its dense peak over the BF16 one."""
    w = scenario.workload
    mode = "full" if w.full_recompute else w.recompute
    return dict(
        recompute=_scalar(1.0 if mode == "full" else 0.0),
        selective=_scalar(1.0 if mode == "selective" else 0.0),
        scores=_scalar(1.0 if mode == "none" else 0.0),
        dualpipe=_scalar(1.0 if w.dualpipe and w.parallelism == "pipeline" else 0.0),
        precision_code=_scalar(PRECISION_CODES[w.precision]),
        peak_ratio=_scalar(gpu.peak_tflops(w.precision) / gpu.peak_bf16_tflops.typical),
    )


def _layout_arrays(scenario: Scenario, params: float, hidden: float, g: float, domain: float) -> dict[str, np.ndarray]:
    """The training layout and the choices the model reads as numbers (flags and sizes), ``(1, 1)``; expert
    parallelism by default over the experts, at most the scale-up ``domain`` (and the cluster's GPUs)."""
    c, w = scenario.cluster, scenario.workload
    tp_default = 1 if w.parallelism == "fsdp" else g
    vch = scenario.operations.value_of_cluster_hour
    return dict(
        hidden=_scalar(hidden),
        compute_efficiency=_scalar(np.nan if w.compute_efficiency is None else w.compute_efficiency),
        fused_attention=_scalar(1.0 if w.fused_attention else 0.0),
        sequence_parallel=_scalar(1.0 if w.sequence_parallel else 0.0),
        n_layers=_scalar(w.layers if w.layers is not None else float(transformer.layers(params, hidden))),
        tp=_scalar(w.tensor_parallel or tp_default),
        pipeline_stages=_scalar(w.pipeline_stages if w.parallelism == "pipeline" else 1),
        vp=_scalar(w.virtual_stages if w.parallelism == "pipeline" else 1),
        zero=_scalar(ZERO_STAGE[w.parallelism] if w.zero_stage is None or w.parallelism == "best" else w.zero_stage),
        experts=_scalar(w.experts or 0),
        node_dedup=_scalar(1.0 if w.moe_node_dedup else 0.0),
        moe_max_nodes=_scalar(w.moe_max_nodes or 0),
        ep=_scalar(w.expert_parallel or (min(w.experts, min(domain, c.nodes * g)) if w.experts else 1)),
        active_params=_scalar(params if w.active_params_b is None else
                              w.active_params_b * quantities.spec("workload.active_params_b").model.scale),
        value_of_cluster_hour=_scalar(np.nan if vch is None else vch),
        in_network_reduction=_scalar(1.0 if c.in_network_reduction else 0.0),
        frontend_network=_scalar(1.0 if c.frontend_network else 0.0),
        reuse_existing_switches=_scalar(1.0 if c.reuse_existing_switches else 0.0),
    )


def _fabric_arrays(cat: Catalog, fab_specs: list, measured: list) -> dict[str, np.ndarray]:
    """Per-fabric arrays ``(1, F)`` that are not catalog quantities: loss-model codes, features,
    the measurement's latency and hosts, the link media of each fabric's port rate (chosen by rate,
    not drawn)."""
    alpha_scale = quantities.spec("measurement.alpha_us").model.scale
    out = dict(
        measured_alpha_s=_col([np.nan if m is None else m.alpha_us * alpha_scale for m in measured]),
        measured_hosts=_col([np.nan if m is None or m.hosts is None else float(m.hosts) for m in measured]),
        loss_model=_col([LOSS_MODEL_CODES[f.loss_model] for f in fab_specs]),
        sharp_capable=_col([1.0 if f.in_network_reduction else 0.0 for f in fab_specs]),
        ethernet=_col([0.0 if f.family == "infiniband" else 1.0 for f in fab_specs]),
    )
    out.update(
        switch_module_ports=_col([cat.modules[f.optics.switch_module].ports.typical for f in fab_specs]),
        node_module_ports=_col([cat.modules[f.optics.node_module].ports.typical for f in fab_specs]),
        node_optical=_col([1.0 if f.optics.node_links == "optical" else 0.0 for f in fab_specs]),
    )
    fab_media = [cat.media_for(f.port_gbps.typical) for f in fab_specs]
    out.update({name: _col([getattr(m, name).typical for m in fab_media])
                for name in ("dac_reach_m", "aec_reach_m", "aoc_reach_m", "aec_power_w", "aoc_power_w")})
    return out


def _catalog_arrays(ranges: _Ranges, scenario: Scenario, items: dict) -> dict[str, np.ndarray]:
    """The catalog quantities the registry links to the model, group by group in the registry's order
    (the order Monte Carlo draws them); the server's price and host power may be set in the scenario.
    ``items``: the GPU, its prices, the model defaults and the fabrics' specs and prices."""
    c = scenario.cluster
    special = {
        "gpu.host_power_kw": lambda: ranges.scalar("host_power_kw", items["gpu"].host_power_kw,
                                                   override=c.host_power_kw),
        "gpu_price.server_price": lambda: ranges.scalar("server_price", items["gpu_price"].server_price,
                                                        override=c.server_price),
    }
    sources = {"gpu": lambda n: getattr(items["gpu"], n), "gpu_price": lambda n: getattr(items["gpu_price"], n),
               "model": lambda n: items["model"][n]}
    out: dict[str, np.ndarray] = {}
    for group in ("gpu", "gpu_price", "model", "fabric", "fabric_price"):
        for spec in quantities.group(group).values():
            if spec.model is None:
                continue
            name, scale = spec.model.field, spec.model.scale
            if not spec.model.direct:
                if spec.id in special:
                    out[name] = special[spec.id]()
            elif group in sources:
                out[name] = ranges.scalar(name, sources[group](spec.name), scale)
            else:
                out[name] = ranges.column(name, items[group], spec.name, scale)
    return out


def build(scenario: Scenario, catalog: Catalog | None = None) -> Built:
    """Arrays for one scenario: scenario-level ``(1, 1)``, fabric-level ``(1, F)``.

    The one place a scenario meets its priced catalog: the price book, the overrides and the
    measurements are applied here, then every array is made once.
    """
    cat = catalog or load_catalog()
    book = price_books.for_scenario(scenario, cat)
    ov, c, w = scenario.overrides, scenario.cluster, scenario.workload
    gpu = _apply(cat.gpus[c.gpu], ov.gpus.get(c.gpu))
    g = c.gpus_per_node or gpu.default_gpus_per_node.typical
    nics = c.nics_per_node or gpu.default_nics_per_node.typical
    slot_gbps = float(host_link.slot_bytes_s(gpu.nic_pcie_gen.typical, gpu.nic_pcie_lanes.typical,
                                         cat.model["pcie_efficiency"].typical)) * 8.0 / GIGA
    fab_specs, measured, measured_a2a = _measured_fabrics(
        scenario, [_apply(cat.fabrics[f], ov.fabrics.get(f)) for f in scenario.fabrics], nics, g, slot_gbps)
    items = {"gpu": gpu, "gpu_price": _apply(book.gpus[c.gpu], ov.gpu_prices.get(c.gpu)), "model": cat.model,
             "fabric": fab_specs, "fabric_price": [_apply(book.fabrics[f], ov.fabric_prices.get(f))
                                                   for f in scenario.fabrics]}
    params = w.model_params_b * quantities.spec("workload.model_params_b").model.scale
    hidden = (w.hidden_size if w.hidden_size is not None
              else float(hidden_size(params, cat.model["d_model_per_layer"].typical)))
    # scenario inputs that are a plain unit scaling (the registry's model.scale)
    arrays = {spec.model.field: _scalar(_path(scenario, spec.id) * spec.model.scale)
              for spec in quantities.direct("scenario")}
    domain = scaleup.domain_gpus(c.scaleup_domain_gpus, g, gpu)
    arrays.update(gpus_per_node=_scalar(g), nics_per_node=_scalar(nics), scaleup_gpus=_scalar(domain),
                  **_layout_arrays(scenario, params, hidden, g, domain),
                  **_recompute_arrays(scenario, cat.gpus[c.gpu]),
                  **_fabric_arrays(cat, fab_specs, measured),
                  **{name: _scalar(getattr(cat.layout, name).typical) for name in type(cat.layout).model_fields})
    ranges = _Ranges()
    arrays.update(_catalog_arrays(ranges, scenario, items))
    arrays.update({k: _scalar(v) for k, v in finance_carbon_terms(scenario).items()})
    arrays.update(kernel_arrays(cat, c.gpu))
    arrays.update(facility_arrays(scenario, cat, book.currency))
    structure = Structure(
        horizon_years=scenario.finance.horizon_years, parallelism=w.parallelism, payment=scenario.finance.payment,
        schedule=w.schedule, scope=scenario.scope, fabric_ids=tuple(scenario.fabrics),
        families=tuple(f.family for f in fab_specs), baseline_index=scenario.fabrics.index(scenario.baseline),
        currency=book.currency, measured=tuple(None if m is None else m.summary for m in measured),
        measured_alltoall=tuple(None if m is None else m.summary for m in measured_a2a),
    )
    return Built(Inputs(**arrays), structure, ranges.uncertain)


def finance_carbon_terms(scenario: Scenario) -> dict[str, float]:
    """Tax rate [0-1], depreciation lives [years] and grid factor [kg CO₂e/kWh] the model uses: the
    scenario's own value, else its region's preset."""
    fi, fa = scenario.finance, scenario.facility
    preset = regions.tax_preset(fi.tax_region)
    chosen = {"tax_rate": fi.tax_rate, "dep_years_servers": fi.depreciation_years_servers,
              "dep_years_network": fi.depreciation_years_network}
    keys = dict(zip(chosen, regions.TAX_KEYS, strict=True))
    out = {k: float(preset[keys[k]].typical if v is None else v) for k, v in chosen.items()}
    out["grid_kg_per_kwh"] = float(regions.grid_factor(fa.grid_region).typical if fa.grid_kg_per_kwh is None
                                   else fa.grid_kg_per_kwh)
    return out
