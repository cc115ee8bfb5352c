"""The validated input of the model: a :class:`Scenario` (pydantic v2).

A section's numeric fields are declared in the registry of quantities (``data/quantities.yaml``):
type, bounds (validation limits, not defaults), whether it may be empty and its description with
the unit; :func:`_section` generates them. Their defaults come from ``data/defaults.yaml``
(through the catalog), never from literals here. Unknown fields, NaN and infinities are rejected.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, ValidationInfo, model_validator

from costmodel import quantities
from costmodel.catalog.loader import catalog_in, load_catalog
from costmodel.errors import FieldError, clean_text
from costmodel.scenario import scaleup
from costmodel.scenario.fields import STRICT, CatalogId, blank_default, plain_text, section_model
from costmodel.scenario.measurements import AlltoallMeasurement, Measurement
from costmodel.scenario.serving import Serving, check_serving


def _section(choices: type[BaseModel], section: str, doc: str) -> type[BaseModel]:
    """A scenario section of this module (:func:`~costmodel.scenario.fields.section_model`)."""
    return section_model(choices, section, doc, __name__)


class _ClusterChoices(BaseModel):
    """The GPU servers: the fields that are not numbers."""

    model_config = STRICT
    gpu: CatalogId = Field(default_factory=blank_default("gpu"), description="GPU type: an id of the GPU catalog")
    in_network_reduction: bool = Field(
        False,
        description="reduce the data-parallel all-reduce in the switches (SHARP) on fabrics whose switches "
        "support it; NCCL needs it turned on (NCCL_COLLNET_ENABLE=1), so off by default",
    )
    # --- bill of materials
    frontend_network: bool = Field(
        True,
        description="cost the front-end / storage Ethernet every cluster needs besides its compute fabric "
        "(the price book's frontend_per_node per server; cluster scope only, the same for every fabric)",
    )
    reuse_existing_switches: bool = Field(
        False,
        description="keep the Ethernet switches already on site: Ethernet-family fabrics whose port rate they "
        "support (existing_switch_gbps) buy no switches (power and support still counted); InfiniBand pays in full",
    )


Cluster = _section(_ClusterChoices, "cluster", "The GPU servers.")


class _WorkloadChoices(BaseModel):
    """The training plan: the fields that are not numbers."""

    model_config = STRICT
    full_recompute: bool = Field(
        False, description="full activation recomputation: the forward runs twice (hardware FLOPs × 4/3); "
        "on, it overrides recompute"
    )
    recompute: Literal["none", "selective", "full"] = Field(
        "selective",
        description="activation recomputation: 'none' keeps every activation (the s×s attention scores too), "
        "'selective' recomputes the attention scores in the backward (a fused attention kernel does the same; "
        "a few % more FLOPs), 'full' keeps only each layer's input and runs the forward twice",
    )
    precision: Literal["bf16", "fp8", "fp4"] = Field(
        "bf16",
        description="precision of the matrix multiplies: the GPU's dense peak at that precision, the share of it "
        "training reaches, FP8 copies of the weights and FP8-cached inputs of the linear layers; FP8 and FP4 "
        "only on GPUs that have them",
    )
    dualpipe: bool = Field(
        False, description="DeepSeek's bidirectional pipeline schedule (pipeline parallelism): two copies of each "
        "stage's weights, activations of p + 1 micro-batches",
    )
    parallelism: Literal["dp", "fsdp", "pipeline", "best"] = Field(
        "dp",
        description="across nodes: data parallel (tensor parallel inside the node), "
        "FSDP/ZeRO-3, pipeline stages × data parallel, or best: each fabric at the fastest layout "
        "of a bounded grid that fits GPU memory",
    )
    moe_node_dedup: bool = Field(
        False, description="a token crosses the fabric once per remote node, not per expert (DeepEP dispatch)"
    )
    fused_attention: bool = Field(
        True, description="fused attention (FlashAttention): no s × s score matrices through memory; false for "
        "runs before 2022 (Megatron-LM's materialised softmax)"
    )
    sequence_parallel: bool = Field(
        True, description="sequence parallelism: norms and dropouts split over the tensor-parallel ranks (Megatron-LM "
        "since 2022); false = every rank runs them on the whole sequence"
    )
    schedule: Literal["plan", "always_busy"] = Field(
        "plan", description="'plan': run runs_per_year runs; 'always_busy': run back to back all year"
    )


Workload = _section(_WorkloadChoices, "workload", "The training plan.")


class _FacilityChoices(BaseModel):
    """Power and cooling: the fields that are not numbers."""

    model_config = STRICT
    grid_region: Literal["cn", "us", "eu"] = Field(
        "us", description="electricity grid whose average emission factor applies (data/finance_carbon.yaml)"
    )
    cooling: Literal["air", "liquid"] = Field(
        "air", description="how the hall is cooled: room air, or direct-to-chip liquid (data/cooling.yaml); "
        "sets the PUE when facility.pue is empty and the cooling capex per kW"
    )
    build_cooling: bool = Field(
        False, description="cost the cooling built for this cluster (capex per kW of peak IT power); off, the "
        "site's cooling is in place and paid through its PUE"
    )


Facility = _section(_FacilityChoices, "facility", "Power and cooling.")


class _OperationsChoices(BaseModel):
    """Staff, maintenance, checkpointing and the value of time: the fields that are not numbers."""

    model_config = STRICT


Operations = _section(_OperationsChoices, "operations", "Staff, maintenance, checkpointing and the value of time.")


class _FinanceChoices(BaseModel):
    """Horizon, discounting and payment: the fields that are not numbers."""

    model_config = STRICT
    payment: Literal["upfront", "instalments"] = Field("upfront", description="how capex is paid")
    tax_region: Literal["none", "cn", "us"] = Field(
        "none", description="income-tax rules: 'none' = pre-tax figures; 'cn', 'us' = the region's presets"
    )


Finance = _section(_FinanceChoices, "finance", "Horizon, discounting and payment.")


class Context(BaseModel):
    """Facts the seed article's decision tree asks about (not used by the cost model)."""

    model_config = STRICT
    budget_tight: bool = Field(False, description="initial budget is tight")
    existing_ethernet: bool = Field(False, description="a good Ethernet fabric already exists")
    ops_team: Literal["weak", "strong"] = Field("strong", description="network operations team")


# Catalog quantities a scenario may override (the Assumptions page), with hard bounds; both
# generated from the registry (data/quantities.yaml, ``override: true``).
# An override replaces the catalog's typical value and collapses its range to that value.
# host power and server price are Cluster inputs (cluster.host_power_kw, cluster.server_price);
# they are not overridable here, so each number has one place to change it.
FABRIC_OVERRIDE_BOUNDS: dict[str, tuple[float, float]] = quantities.override_bounds("fabric")
GPU_OVERRIDE_BOUNDS: dict[str, tuple[float, float]] = quantities.override_bounds("gpu")
FABRIC_PRICE_BOUNDS: dict[str, tuple[float, float]] = quantities.override_bounds("fabric_price")
GPU_PRICE_BOUNDS: dict[str, tuple[float, float]] = quantities.override_bounds("gpu_price")
MAX_OVERRIDDEN_ITEMS = 64


def _check_table(table: dict, bounds: dict[str, tuple[float, float]], known: dict, where: str) -> None:
    if len(table) > MAX_OVERRIDDEN_ITEMS:
        raise FieldError(where, f"at most {MAX_OVERRIDDEN_ITEMS} items", "too_many_items",
                           hi=str(MAX_OVERRIDDEN_ITEMS))
    for item, fields in table.items():
        if item not in known:
            raise FieldError(f"{where}.{clean_text(item, 40)}", f"unknown id; allowed: {', '.join(known)}",
                               "unknown_id", choices=", ".join(known))
        for name, value in fields.items():
            if name not in bounds:
                raise FieldError(f"{where}.{item}.{clean_text(name, 40)}", "not an overridable quantity; "
                                   f"allowed: {', '.join(bounds)}", "not_overridable", choices=", ".join(bounds))
            lo, hi = bounds[name]
            if not lo <= value <= hi:
                raise FieldError(f"{where}.{item}.{name}", f"{value:g} is out of range; allowed: ≥ {lo:g} and "
                                   f"≤ {hi:g}", "out_of_range", got=f"{value:g}", lo=f"{lo:g}", hi=f"{hi:g}")


class Overrides(BaseModel):
    """Edits of catalog and price-book values for this scenario only (units as in the catalog)."""

    model_config = STRICT
    fabrics: dict[CatalogId, dict[str, float]] = Field(default_factory=dict, description="fabric id → field → value")
    gpus: dict[CatalogId, dict[str, float]] = Field(default_factory=dict, description="GPU id → field → value")
    fabric_prices: dict[CatalogId, dict[str, float]] = Field(
        default_factory=dict, description="fabric id → price field → value [currency]"
    )
    gpu_prices: dict[CatalogId, dict[str, float]] = Field(
        default_factory=dict, description="GPU id → price field → value [currency]"
    )

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> Overrides:
        cat = catalog_in(info)
        _check_table(self.fabrics, FABRIC_OVERRIDE_BOUNDS, cat.fabrics, "overrides.fabrics")
        _check_table(self.gpus, GPU_OVERRIDE_BOUNDS, cat.gpus, "overrides.gpus")
        _check_table(self.fabric_prices, FABRIC_PRICE_BOUNDS, cat.fabrics, "overrides.fabric_prices")
        _check_table(self.gpu_prices, GPU_PRICE_BOUNDS, cat.gpus, "overrides.gpu_prices")
        return self

    def is_empty(self) -> bool:
        """True when nothing is overridden."""
        return not (self.fabrics or self.gpus or self.fabric_prices or self.gpu_prices)


# Discount categories of a derived price book and the price fields each covers.
DISCOUNT_CATEGORIES: dict[str, tuple[str, ...]] = {
    "servers": ("server_price", "gpu_price"),
    "nics": ("nic_price",),
    "switches": ("switch_price",),
    "cabling": ("cable_price", "optic_price", "aec_price", "aoc_price", "fibre_price"),
    "installation": ("install_per_node", "install_per_link"),
}
MAX_DISCOUNT_PCT = float(quantities.spec("price_book.discount_pct").hi)
BOOK_GPU_PRICE_BOUNDS: dict[str, tuple[float, float]] = quantities.book_bounds("gpu_price")


class DerivedPriceBook(BaseModel):
    """A sales price book derived from a base book: % discounts by category, then explicit prices.

    Prices are in the base book's currency; an explicit price wins over the discount of its
    category. ``id`` is the store's id of the book ("" when it was never saved).
    """

    model_config = STRICT
    id: str = Field("", max_length=64, pattern=r"^[A-Za-z0-9_-]*$", description="store id; empty = not saved")
    name: str = Field(min_length=1, max_length=120, description="free text")
    discounts: dict[Literal["servers", "nics", "switches", "cabling", "installation"], float] = Field(
        default_factory=dict, description="category → discount on the base price [%, 0-95]"
    )
    gpus: dict[CatalogId, dict[str, float]] = Field(
        default_factory=dict, description="GPU id → price field → price [currency]"
    )
    fabrics: dict[CatalogId, dict[str, float]] = Field(
        default_factory=dict, description="fabric id → price field → price [currency]"
    )

    @model_validator(mode="after")
    def _check(self, info: ValidationInfo) -> DerivedPriceBook:
        cat = catalog_in(info)
        plain_text(self.name, "name")
        for category, pct in self.discounts.items():
            quantities.spec("price_book.discount_pct").check(pct, f"discounts.{category}")
        _check_table(self.gpus, BOOK_GPU_PRICE_BOUNDS, cat.gpus, "gpus")
        _check_table(self.fabrics, FABRIC_PRICE_BOUNDS, cat.fabrics, "fabrics")
        return self


class Scenario(BaseModel):
    """A whole what-if: cluster, workload, facility, operations, finance, serving, scope and fabrics."""

    model_config = STRICT
    name: str = Field("Untitled scenario", min_length=1, max_length=200, description="free text")
    price_book: CatalogId = Field("public", description="id of the price book to use")
    custom_price_book: DerivedPriceBook | None = Field(
        None, description="a sales price book applied on top of price_book; empty = price_book as published"
    )
    scope: Literal["cluster", "fabric"] = Field(
        "cluster", description="'cluster': whole-cluster TCO; 'fabric': network-attributable costs only"
    )
    cluster: Cluster = Field(default_factory=Cluster)
    workload: Workload = Field(default_factory=Workload)
    facility: Facility = Field(default_factory=Facility)
    operations: Operations = Field(default_factory=Operations)
    finance: Finance = Field(default_factory=Finance)
    context: Context = Field(default_factory=Context)
    serving: Serving = Field(default_factory=Serving, description="the inference service (the Serving page)")
    fabrics: list[CatalogId] = Field(
        default_factory=lambda: list(load_catalog().blank_scenario["fabrics"]),
        min_length=1,
        max_length=12,
        description="fabric ids to compare",
    )
    baseline: CatalogId = Field(
        default_factory=blank_default("baseline"), description="the fabric the others are compared with"
    )
    overrides: Overrides = Field(default_factory=Overrides, description="edited catalog and price-book values")
    measurements: dict[CatalogId, Measurement] = Field(
        default_factory=dict, description="fabric id → its nccl-tests measurement (each a compared fabric)"
    )
    alltoall_measurements: dict[CatalogId, AlltoallMeasurement] = Field(
        default_factory=dict, description="fabric id → its alltoall_perf measurement (each a compared fabric)"
    )

    @model_validator(mode="after")
    def _check_ids(self, info: ValidationInfo) -> Scenario:
        cat = catalog_in(info)
        if self.cluster.gpu not in cat.gpus:
            raise FieldError("cluster.gpu", f"unknown GPU {self.cluster.gpu!r}; allowed: {', '.join(cat.gpus)}",
                               "unknown_id", got=repr(self.cluster.gpu), choices=", ".join(cat.gpus))
        unknown = [f for f in self.fabrics if f not in cat.fabrics]
        if unknown:
            raise FieldError("fabrics", f"unknown fabric {unknown[0]!r}; allowed: {', '.join(cat.fabrics)}",
                               "unknown_id", got=repr(unknown[0]), choices=", ".join(cat.fabrics))
        if len(set(self.fabrics)) != len(self.fabrics):
            raise FieldError("fabrics", "each fabric may appear once", "fabric_twice")
        part = cat.gpus[self.cluster.gpu]
        barred = [f for f in self.fabrics if not part.carries(f)]
        if barred:
            usable = ", ".join(part.fabrics or ())
            raise FieldError("fabrics", f"the {part.name} cannot carry {barred[0]!r} (cluster.gpu); its server "
                             f"takes one of: {usable}", "fabric_not_carried", gpu=part.name, got=repr(barred[0]),
                             choices=usable)
        if self.baseline not in self.fabrics:
            raise FieldError("baseline", f"{self.baseline!r} must be one of fabrics {self.fabrics}",
                               "baseline_not_compared", got=repr(self.baseline), choices=str(self.fabrics))
        if self.price_book not in cat.price_books:
            raise FieldError(
                "price_book", f"unknown price book {self.price_book!r}; allowed: {', '.join(cat.price_books)}",
                "unknown_id", got=repr(self.price_book), choices=", ".join(cat.price_books),
            )
        plain_text(self.name, "name")
        for fid in [*self.measurements, *self.alltoall_measurements]:
            if fid not in self.fabrics:
                slot = "measurements" if fid in self.measurements else "alltoall_measurements"
                raise FieldError(f"{slot}.{fid}", f"{fid!r} is not a compared fabric; a measurement "
                                 f"belongs to one of fabrics: {', '.join(self.fabrics)}", "measurement_not_compared",
                                 got=repr(fid), choices=", ".join(self.fabrics))
        for fid, a2a in self.alltoall_measurements.items():
            if a2a.hosts > a2a.ranks:
                raise FieldError(f"alltoall_measurements.{fid}.hosts", f"at most the run's ranks ({a2a.ranks}); "
                                 f"got {a2a.hosts} hosts", "alltoall_hosts", got=str(a2a.hosts), hi=str(a2a.ranks))
        if self.workload.parallelism == "pipeline" and self.workload.pipeline_stages > self.cluster.nodes:
            raise FieldError(
                "workload.pipeline_stages", f"at most the number of nodes ({self.cluster.nodes}); "
                "each stage runs on at least one node", "stages_above_nodes", hi=str(self.cluster.nodes),
            )
        precision, gpu = self.workload.precision, self.cluster.gpu
        if cat.gpus[gpu].peak_tflops(precision) is None:
            raise FieldError("workload.precision", f"the {cat.gpus[gpu].name} has no {precision.upper()} tensor "
                             "cores; choose BF16 or a GPU that has them", "precision_unsupported",
                             gpu=cat.gpus[gpu].name, precision=precision.upper())
        check_serving(self.serving, gpu, cat)
        g = int(self.cluster.gpus_per_node or cat.gpus[self.cluster.gpu].default_gpus_per_node.typical)
        self._check_layout(g)
        scaleup.check(self.cluster.scaleup_domain_gpus, g)
        if self.facility.gpu_idle_power_frac > self.facility.gpu_busy_power_frac:
            raise FieldError(
                "facility.gpu_idle_power_frac", "must not exceed gpu_busy_power_frac "
                f"({self.facility.gpu_busy_power_frac:g})", "idle_above_busy",
                hi=f"{self.facility.gpu_busy_power_frac:g}",
            )
        if self.finance.payment == "instalments" and (self.finance.instalment_months > 12 * self.finance.horizon_years):
            raise FieldError(
                "finance.instalment_months", "must be at most 12 × horizon_years "
                f"({12 * self.finance.horizon_years}) so every instalment falls in the horizon",
                "instalments_beyond_horizon", hi=str(12 * self.finance.horizon_years),
            )
        return self

    def _check_layout(self, g: int) -> None:
        """The training layout's own fields must describe a layout that exists on this cluster
        (checked only where they are set, so documents without them open as before)."""
        w, n = self.workload, self.cluster.nodes
        stages = w.pipeline_stages if w.parallelism == "pipeline" else 1
        t = w.tensor_parallel
        if t is not None:
            if (t <= g and g % t) or (t > g and t % g):
                ok = [d for d in range(1, g + 1) if g % d == 0]
                raise FieldError("workload.tensor_parallel",
                                 f"must divide the {g} GPUs of a node ({', '.join(map(str, ok))}) or be a multiple "
                                 "of them", "tp_not_divisor", g=str(g), choices=", ".join(map(str, ok)))
            if t * stages > n * g:
                raise FieldError("workload.tensor_parallel", f"at most {n * g // stages} with {stages} pipeline "
                                 f"stages on {n * g} GPUs", "tp_above_gpus", hi=str(n * g // stages))
        if w.experts and w.expert_parallel is not None and w.expert_parallel > n * g // stages:
            raise FieldError("workload.expert_parallel", f"at most the {n * g // stages} GPUs of a pipeline stage",
                             "ep_above_gpus", hi=str(n * g // stages))
        if w.active_params_b is not None and w.active_params_b > w.model_params_b:
            raise FieldError("workload.active_params_b", f"at most the model size ({w.model_params_b:g} B)",
                             "active_above_total", hi=f"{w.model_params_b:g}")
