"""The validated input of the model: a :class:`Scenario` (pydantic v2).

Every numeric field has explicit bounds and its unit in its name or description; unknown
fields, NaN and infinities are rejected. Default values come from ``data/defaults.yaml``
(through the catalog), never from literals here. Bounds are validation limits, not defaults,
and come from the registry of quantities (``data/quantities.yaml``), never from literals here.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from costmodel import quantities
from costmodel.catalog.loader import catalog_in, load_catalog
from costmodel.errors import FieldError, clean_text


def _d(group: str, name: str, kind: type = float):
    """Default factory: the packaged catalog's typical ``group.name`` as ``kind`` (read on first use)."""
    return lambda: kind(load_catalog().default(group, name))


def _blank(key: str):
    """Default factory: ``key`` of the packaged catalog's blank scenario (read on first use)."""
    return lambda: load_catalog().blank_scenario[key]


def _b(path: str) -> dict[str, float]:
    """The bounds of a scenario field, from the registry (data/quantities.yaml)."""
    return quantities.field(path)


# strict: no silent coercion of "64", true or 1.0 into numbers, booleans or integers.
_STRICT = ConfigDict(extra="forbid", allow_inf_nan=False, validate_default=True, frozen=True, strict=True)
CatalogId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9_-]*$")]


class Cluster(BaseModel):
    """The GPU servers."""

    model_config = _STRICT
    nodes: int = Field(
        default_factory=_d("cluster", "nodes", int),
        **_b("cluster.nodes"),
        description="GPU servers in the cluster [count]",
    )
    gpu: CatalogId = Field(default_factory=_blank("gpu"), description="GPU type: an id of the GPU catalog")
    gpus_per_node: int | None = Field(
        None, **_b("cluster.gpus_per_node"), description="GPUs per server [count]; empty = the GPU's reference server"
    )
    nics_per_node: int | None = Field(
        None,
        **_b("cluster.nics_per_node"),
        description="compute-fabric NIC ports ('rails') per server [count]; empty = the GPU's reference server",
    )
    server_price: float | None = Field(
        None,
        **_b("cluster.server_price"),
        description="price of one server without fabric NICs [currency]; empty = the price book's",
    )
    host_power_kw: float | None = Field(
        None, **_b("cluster.host_power_kw"), description="non-GPU power of one server [kW]; empty = catalog"
    )
    host_cpu_cost_share: float = Field(
        default_factory=_d("cluster", "host_cpu_cost_share"),
        **_b("cluster.host_cpu_cost_share"),
        description="share of the server price that is host CPU and memory [0-1]",
    )
    host_cpu_power_share: float = Field(
        default_factory=_d("cluster", "host_cpu_power_share"),
        **_b("cluster.host_cpu_power_share"),
        description="share of the host (non-GPU) power drawn by CPUs and memory [0-1]",
    )
    oversubscription: float = Field(
        default_factory=_d("cluster", "oversubscription"),
        **_b("cluster.oversubscription"),
        description="leaf switches' down- over uplinks [ratio]; 1 = non-blocking",
    )
    in_network_reduction: bool = Field(
        False,
        description="reduce the data-parallel all-reduce in the switches (SHARP) on fabrics whose switches "
        "support it; NCCL needs it turned on (NCCL_COLLNET_ENABLE=1), so off by default",
    )
    nodes_per_rack: int = Field(
        default_factory=_d("cluster", "nodes_per_rack", int),
        **_b("cluster.nodes_per_rack"),
        description="GPU servers per rack [count]; sets the cable lengths and so the link media",
    )
    spare_switch_frac: float = Field(
        default_factory=_d("cluster", "spare_switch_frac"),
        **_b("cluster.spare_switch_frac"),
        description="spare switches bought, a share of those installed [0-1]",
    )
    spare_cable_frac: float = Field(
        default_factory=_d("cluster", "spare_cable_frac"),
        **_b("cluster.spare_cable_frac"),
        description="spare cables (DAC, active copper, AOC) bought, a share of those installed [0-1]",
    )
    spare_optic_frac: float = Field(
        default_factory=_d("cluster", "spare_optic_frac"),
        **_b("cluster.spare_optic_frac"),
        description="spare transceivers bought, a share of those installed [0-1]",
    )
    hot_spare_node_frac: float = Field(
        default_factory=_d("cluster", "hot_spare_node_frac"),
        **_b("cluster.hot_spare_node_frac"),
        description="hot-spare servers bought on top of the nodes, a share of them rounded up [0-1]",
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
    existing_switch_gbps: float = Field(
        default_factory=_d("cluster", "existing_switch_gbps"),
        **_b("cluster.existing_switch_gbps"),
        description="port rate of the Ethernet switches already on site [Gb/s]",
    )


class Workload(BaseModel):
    """The training plan."""

    model_config = _STRICT
    model_params_b: float = Field(
        default_factory=_d("workload", "model_params_b"),
        **_b("workload.model_params_b"),
        description="model parameters [billions]",
    )
    tokens_per_run_b: float = Field(
        default_factory=_d("workload", "tokens_per_run_b"),
        **_b("workload.tokens_per_run_b"),
        description="tokens processed by one training run [billions]",
    )
    global_batch_tokens_m: float = Field(
        default_factory=_d("workload", "global_batch_tokens_m"),
        **_b("workload.global_batch_tokens_m"),
        description="tokens per optimizer step [millions]"
    )
    compute_efficiency: float = Field(
        default_factory=_d("workload", "compute_efficiency"),
        **_b("workload.compute_efficiency"),
        description="share of the GPU's peak its kernels reach while computing (hardware FLOPs, "
        "no communication, no pipeline bubble) [0-1]",
    )
    full_recompute: bool = Field(
        False, description="full activation recomputation: the forward runs twice (hardware FLOPs × 4/3)"
    )
    parallelism: Literal["dp", "fsdp", "pipeline", "best"] = Field(
        "dp",
        description="across nodes: data parallel (tensor parallel inside the node), "
        "FSDP/ZeRO-3, pipeline stages × data parallel, or best: each fabric at the fastest layout "
        "of a bounded grid that fits GPU memory",
    )
    pipeline_stages: int = Field(
        default_factory=_d("workload", "pipeline_stages", int),
        **_b("workload.pipeline_stages"),
        description="pipeline stages across nodes [count]"
    )
    virtual_stages: int = Field(
        default_factory=_d("workload", "virtual_stages", int),
        **_b("workload.virtual_stages"),
        description="interleaved model chunks per pipeline stage (virtual stages) [count]",
    )
    micro_batch_seqs: int = Field(
        default_factory=_d("workload", "micro_batch_seqs", int),
        **_b("workload.micro_batch_seqs"),
        description="sequences per micro-batch on each model replica [count]",
    )
    seq_len: int = Field(
        default_factory=_d("workload", "seq_len", int),
        **_b("workload.seq_len"),
        description="sequence length [tokens]",
    )
    tensor_parallel: int | None = Field(
        None, **_b("workload.tensor_parallel"),
        description="tensor-parallel size; empty = the GPUs of a node (data parallel, pipeline) or 1 (FSDP)",
    )
    experts: int | None = Field(
        None, **_b("workload.experts"), description="routed experts of a mixture-of-experts model; empty = dense"
    )
    top_k: int = Field(
        default_factory=_d("workload", "top_k", int), **_b("workload.top_k"),
        description="experts each token is routed to [count]",
    )
    expert_parallel: int | None = Field(
        None, **_b("workload.expert_parallel"),
        description="GPUs the experts are spread over; empty = one node's GPUs (as many as there are experts)",
    )
    active_params_b: float | None = Field(
        None, **_b("workload.active_params_b"),
        description="parameters each token passes through [billions]; empty = all (dense)",
    )
    a2a_overlap: float = Field(
        default_factory=_d("workload", "a2a_overlap"), **_b("workload.a2a_overlap"),
        description="share of the expert all-to-all hidden behind other micro-batches' compute [0-1]",
    )
    moe_node_dedup: bool = Field(
        False, description="a token crosses the fabric once per remote node, not per expert (DeepEP dispatch)"
    )
    layers: int | None = Field(
        None, **_b("workload.layers"), description="transformer layers; empty = from size and width (P ≈ 12 l h²)"
    )
    grad_bytes: float = Field(
        default_factory=_d("workload", "grad_bytes"),
        **_b("workload.grad_bytes"),
        description="bytes per gradient element [B]",
    )
    hidden_size: int | None = Field(
        None, **_b("workload.hidden_size"), description="model width d_model; empty = from the parameter count"
    )
    schedule: Literal["plan", "always_busy"] = Field(
        "plan", description="'plan': run runs_per_year runs; 'always_busy': run back to back all year"
    )
    runs_per_year: float = Field(
        default_factory=_d("workload", "runs_per_year"),
        **_b("workload.runs_per_year"),
        description="training runs planned per year [count]"
    )
    target_run_days: float | None = Field(
        None, **_b("workload.target_run_days"),
        description="longest acceptable run for the equal-work comparison [days]; empty = the plan "
        "only has to fit in a year",
    )


class Facility(BaseModel):
    """Power and cooling."""

    model_config = _STRICT
    pue: float = Field(
        default_factory=_d("facility", "pue"), **_b("facility.pue"), description="power usage effectiveness [ratio]"
    )
    electricity_price_per_kwh: float = Field(
        default_factory=_d("facility", "electricity_price_per_kwh"),
        **_b("facility.electricity_price_per_kwh"),
        description="electricity price [currency/kWh]"
    )
    gpu_busy_power_frac: float = Field(
        default_factory=_d("facility", "gpu_busy_power_frac"),
        **_b("facility.gpu_busy_power_frac"),
        description="GPU power while training, share of TDP [0-1.2]",
    )
    gpu_idle_power_frac: float = Field(
        default_factory=_d("facility", "gpu_idle_power_frac"),
        **_b("facility.gpu_idle_power_frac"),
        description="GPU power while idle, share of TDP [0-1]"
    )
    # --- finance and carbon
    grid_region: Literal["cn", "us", "eu"] = Field(
        "us", description="electricity grid whose average emission factor applies (data/finance_carbon.yaml)"
    )
    grid_kg_per_kwh: float | None = Field(
        None, **_b("facility.grid_kg_per_kwh"),
        description="grid emission factor [kg CO2e/kWh]; empty = the grid region's published average",
    )


class Operations(BaseModel):
    """Staff, maintenance, checkpointing and the value of time."""

    model_config = _STRICT
    cluster_ops_cost_per_node_year: float = Field(
        default_factory=_d("operations", "cluster_ops_cost_per_node_year"),
        **_b("operations.cluster_ops_cost_per_node_year"),
        description="systems staff cost per server per year [currency]",
    )
    network_ops_cost_per_node_year: float = Field(
        default_factory=_d("operations", "network_ops_cost_per_node_year"),
        **_b("operations.network_ops_cost_per_node_year"),
        description="network staff cost per server per year for plain TCP Ethernet [currency]; "
        "scaled by the fabric's ops factor",
    )
    maintenance_frac_per_year: float = Field(
        default_factory=_d("operations", "maintenance_frac_per_year"),
        **_b("operations.maintenance_frac_per_year"),
        description="support contracts and spares per year, share of capex [0-0.5]",
    )
    checkpoint_write_gbs_per_node: float = Field(
        default_factory=_d("operations", "checkpoint_write_gbs_per_node"),
        **_b("operations.checkpoint_write_gbs_per_node"),
        description="checkpoint write bandwidth per server [GB/s]",
    )
    restart_minutes: float = Field(
        default_factory=_d("operations", "restart_minutes"),
        **_b("operations.restart_minutes"),
        description="time to detect a failure, reschedule and reload [min]",
    )
    node_repair_hours: float = Field(
        default_factory=_d("operations", "node_repair_hours"),
        **_b("operations.node_repair_hours"),
        description="time to put a failed server back in service, waited for when no hot spare is free [h]",
    )
    value_of_cluster_hour: float | None = Field(
        None,
        **_b("operations.value_of_cluster_hour"),
        description="value of one cluster-hour, lost, waiting on the network or taken by the host CPU "
        "[currency/h]; empty = GPU rental rate × GPUs",
    )
    # --- bill of materials: staff with a fixed floor
    network_staff_fte: float = Field(
        default_factory=_d("operations", "network_staff_fte"),
        **_b("operations.network_staff_fte"),
        description="network engineers any cluster needs, on top of the per-server share [full-time equivalents]; "
        "scaled by the fabric's ops factor",
    )
    cluster_staff_fte: float = Field(
        default_factory=_d("operations", "cluster_staff_fte"),
        **_b("operations.cluster_staff_fte"),
        description="systems engineers any cluster needs, on top of the per-server share [full-time equivalents]",
    )
    staff_cost_per_fte_year: float = Field(
        default_factory=_d("operations", "staff_cost_per_fte_year"),
        **_b("operations.staff_cost_per_fte_year"),
        description="fully loaded cost of one engineer a year [currency]",
    )


class Finance(BaseModel):
    """Horizon, discounting and payment."""

    model_config = _STRICT
    horizon_years: int = Field(
        default_factory=_d("finance", "horizon_years", int),
        **_b("finance.horizon_years"),
        description="TCO horizon [years]",
    )
    discount_rate: float = Field(
        default_factory=_d("finance", "discount_rate"),
        **_b("finance.discount_rate"),
        description="yearly discount rate for NPV [0-0.5]"
    )
    payment: Literal["upfront", "instalments"] = Field("upfront", description="how capex is paid")
    instalment_months: int = Field(
        default_factory=_d("finance", "instalment_months", int),
        **_b("finance.instalment_months"),
        description="instalment term [months]"
    )
    instalment_rate_annual: float = Field(
        default_factory=_d("finance", "instalment_rate_annual"),
        **_b("finance.instalment_rate_annual"),
        description="instalment interest rate per year [0-0.5]"
    )
    residual_value_frac: float = Field(
        default_factory=_d("finance", "residual_value_frac"),
        **_b("finance.residual_value_frac"),
        description="resale value at the end of the horizon, share of capex [0-0.9]",
    )
    # --- finance and carbon
    tax_region: Literal["none", "cn", "us"] = Field(
        "none", description="income-tax rules: 'none' = pre-tax figures; 'cn', 'us' = the region's presets"
    )
    tax_rate: float | None = Field(
        None, **_b("finance.tax_rate"), description="income-tax rate [0-0.6]; empty = the tax region's rate"
    )
    depreciation_years_servers: float | None = Field(
        None, **_b("finance.depreciation_years_servers"),
        description="straight-line tax life of servers [years]; empty = the tax region's",
    )
    depreciation_years_network: float | None = Field(
        None, **_b("finance.depreciation_years_network"),
        description="straight-line tax life of network equipment [years]; empty = the tax region's",
    )


class Context(BaseModel):
    """Facts the seed article's decision tree asks about (not used by the cost model)."""

    model_config = _STRICT
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

    model_config = _STRICT
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


def _plain_text(value: str, where: str) -> str:
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp") for ch in value):
        raise FieldError(where, "contains control, line-break or invisible formatting characters; use plain text",
                           "control_characters")
    if not value.strip():
        raise FieldError(where, "must not be blank", "blank")
    return value


class DerivedPriceBook(BaseModel):
    """A sales price book derived from a base book: % discounts by category, then explicit prices.

    Prices are in the base book's currency; an explicit price wins over the discount of its
    category. ``id`` is the store's id of the book ("" when it was never saved).
    """

    model_config = _STRICT
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
        _plain_text(self.name, "name")
        for category, pct in self.discounts.items():
            quantities.spec("price_book.discount_pct").check(pct, f"discounts.{category}")
        _check_table(self.gpus, BOOK_GPU_PRICE_BOUNDS, cat.gpus, "gpus")
        _check_table(self.fabrics, FABRIC_PRICE_BOUNDS, cat.fabrics, "fabrics")
        return self


class Measurement(BaseModel):
    """A fabric's nccl-tests measurement: the fit of a pasted log (``costmodel.physics.nccl_tests.Fit``), never
    the log itself. The model reads ``alpha_us`` and ``busbw_GBps`` (see :mod:`costmodel.physics.calibration`);
    the rest says what was measured, for the "measured" label."""

    model_config = _STRICT
    collective: Literal["all_reduce", "all_gather", "reduce_scatter"] = Field(
        description="the ring collective the log measured (an alltoall log: alltoall_measurements)"
    )
    ranks: int | None = Field(None, **_b("measurement.ranks"), description="ranks of the run [count]; empty = unknown")
    hosts: int | None = Field(None, **_b("measurement.hosts"), description="hosts of the run [count]; empty = unknown")
    gpu: str | None = Field(None, min_length=1, max_length=120, description="GPU name the log reports")
    nccl_version: str | None = Field(None, pattern=r"^\d{1,3}\.\d{1,3}\.\d{1,3}$", description="NCCL version")
    alpha_us: float = Field(**_b("measurement.alpha_us"), description="fitted latency of one collective [µs]")
    busbw_GBps: float = Field(**_b("measurement.busbw_GBps"), description="fitted asymptotic bus bandwidth [GB/s]")
    rows_used: int = Field(**_b("measurement.rows_used"), description="table rows the fit used [count]")
    summary: str = Field(min_length=1, max_length=200, description="the log's header in one line (the label)")
    warnings: list[Annotated[str, Field(pattern=r"^nccl_note_[a-z0-9_]{1,40}$")]] = Field(
        default_factory=list, max_length=32, description="codes of the importer's notes (nccl_note_…)"
    )

    @model_validator(mode="after")
    def _check(self) -> Measurement:
        _plain_text(self.summary, "summary")
        if self.gpu is not None:
            _plain_text(self.gpu, "gpu")
        return self


class AlltoallMeasurement(Measurement):
    """A fabric's alltoall_perf measurement (``scenario.alltoall_measurements``): the fit of the log.
    The model reads ``busbw_GBps``, ``ranks`` and ``hosts`` for the fabric's all-to-all efficiency
    (:func:`costmodel.physics.calibration.alltoall_efficiency`), so the run's hosts must be known."""

    collective: Literal["alltoall"] = Field(description="the collective the log measured: alltoall")
    ranks: int = Field(**_b("measurement.ranks"), description="ranks of the run [count]")
    hosts: int = Field(**_b("measurement.alltoall_hosts"), description="hosts of the run [count]; 2 to ranks")


class Scenario(BaseModel):
    """A whole what-if: cluster, workload, facility, operations, finance, scope and fabrics."""

    model_config = _STRICT
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
    fabrics: list[CatalogId] = Field(
        default_factory=lambda: list(load_catalog().blank_scenario["fabrics"]),
        min_length=1,
        max_length=12,
        description="fabric ids to compare",
    )
    baseline: CatalogId = Field(
        default_factory=_blank("baseline"), description="the fabric the others are compared with"
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
        if self.baseline not in self.fabrics:
            raise FieldError("baseline", f"{self.baseline!r} must be one of fabrics {self.fabrics}",
                               "baseline_not_compared", got=repr(self.baseline), choices=str(self.fabrics))
        if self.price_book not in cat.price_books:
            raise FieldError(
                "price_book", f"unknown price book {self.price_book!r}; allowed: {', '.join(cat.price_books)}",
                "unknown_id", got=repr(self.price_book), choices=", ".join(cat.price_books),
            )
        _plain_text(self.name, "name")
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
        self._check_layout(int(self.cluster.gpus_per_node or cat.gpus[self.cluster.gpu].default_gpus_per_node.typical))
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
