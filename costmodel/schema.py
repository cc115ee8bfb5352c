"""The validated input of the model: a :class:`Scenario` (pydantic v2).

Every numeric field has explicit bounds and its unit in its name or description; unknown
fields, NaN and infinities are rejected. Default values come from ``data/defaults.yaml``
(through the catalog), never from literals here. Bounds are validation limits, not defaults.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from .catalog import catalog_in, load_catalog
from .errors import FieldError, clean_text


def _d(group: str, name: str, kind: type = float):
    """Default factory: the packaged catalog's typical ``group.name`` as ``kind`` (read on first use)."""
    return lambda: kind(load_catalog().default(group, name))


def _blank(key: str):
    """Default factory: ``key`` of the packaged catalog's blank scenario (read on first use)."""
    return lambda: load_catalog().blank_scenario[key]


# strict: no silent coercion of "64", true or 1.0 into numbers, booleans or integers.
_STRICT = ConfigDict(extra="forbid", allow_inf_nan=False, validate_default=True, frozen=True, strict=True)
CatalogId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9_-]*$")]


class Cluster(BaseModel):
    """The GPU servers."""

    model_config = _STRICT
    nodes: int = Field(
        default_factory=_d("cluster", "nodes", int), ge=1, le=100_000, description="GPU servers in the cluster [count]"
    )
    gpu: CatalogId = Field(default_factory=_blank("gpu"), description="GPU type: an id of the GPU catalog")
    gpus_per_node: int | None = Field(
        None, ge=1, le=16, description="GPUs per server [count]; empty = the GPU's reference server"
    )
    nics_per_node: int | None = Field(
        None,
        ge=1,
        le=16,
        description="compute-fabric NIC ports ('rails') per server [count]; empty = the GPU's reference server",
    )
    server_price: float | None = Field(
        None,
        ge=0,
        le=1e8,
        description="price of one server without fabric NICs [currency]; empty = the price book's",
    )
    host_power_kw: float | None = Field(
        None, ge=0, le=50, description="non-GPU power of one server [kW]; empty = catalog"
    )
    host_cpu_cost_share: float = Field(
        default_factory=_d("cluster", "host_cpu_cost_share"),
        ge=0,
        le=1,
        description="share of the server price that is host CPU and memory [0-1]",
    )
    host_cpu_power_share: float = Field(
        default_factory=_d("cluster", "host_cpu_power_share"),
        ge=0,
        le=1,
        description="share of the host (non-GPU) power drawn by CPUs and memory [0-1]",
    )


class Workload(BaseModel):
    """The training plan."""

    model_config = _STRICT
    model_params_b: float = Field(
        default_factory=_d("workload", "model_params_b"), gt=0, le=100_000, description="model parameters [billions]"
    )
    tokens_per_run_b: float = Field(
        default_factory=_d("workload", "tokens_per_run_b"),
        gt=0,
        le=1_000_000,
        description="tokens processed by one training run [billions]",
    )
    global_batch_tokens_m: float = Field(
        default_factory=_d("workload", "global_batch_tokens_m"),
        gt=0, le=1_000, description="tokens per optimizer step [millions]"
    )
    compute_efficiency: float = Field(
        default_factory=_d("workload", "compute_efficiency"),
        ge=0.01,
        le=1,
        description="MFU the job reaches with an infinitely fast network [0-1]",
    )
    full_recompute: bool = Field(
        False, description="full activation recomputation (8 instead of 6 FLOP per parameter-token)"
    )
    parallelism: Literal["dp", "fsdp", "pipeline"] = Field(
        "dp",
        description="across nodes: data parallel (tensor parallel inside the node), "
        "FSDP/ZeRO-3, or pipeline stages × data parallel",
    )
    pipeline_stages: int = Field(
        default_factory=_d("workload", "pipeline_stages", int),
        ge=1, le=1024, description="pipeline stages across nodes [count]"
    )
    pipeline_microbatches: int = Field(
        default_factory=_d("workload", "pipeline_microbatches", int),
        ge=1,
        le=65_536,
        description="micro-batches per step in the pipeline schedule [count]",
    )
    grad_bytes: float = Field(
        default_factory=_d("workload", "grad_bytes"), ge=0.5, le=8, description="bytes per gradient element [B]"
    )
    hidden_size: int | None = Field(
        None, ge=64, le=1_000_000, description="model width d_model; empty = from the parameter count"
    )
    schedule: Literal["plan", "always_busy"] = Field(
        "plan", description="'plan': run runs_per_year runs; 'always_busy': run back to back all year"
    )
    runs_per_year: float = Field(
        default_factory=_d("workload", "runs_per_year"),
        gt=0, le=100_000, description="training runs planned per year [count]"
    )


class Facility(BaseModel):
    """Power and cooling."""

    model_config = _STRICT
    pue: float = Field(
        default_factory=_d("facility", "pue"), ge=1.0, le=3.0, description="power usage effectiveness [ratio]"
    )
    electricity_price_per_kwh: float = Field(
        default_factory=_d("facility", "electricity_price_per_kwh"),
        ge=0, le=10, description="electricity price [currency/kWh]"
    )
    gpu_busy_power_frac: float = Field(
        default_factory=_d("facility", "gpu_busy_power_frac"),
        ge=0,
        le=1.2,
        description="GPU power while training, share of TDP [0-1.2]",
    )
    gpu_idle_power_frac: float = Field(
        default_factory=_d("facility", "gpu_idle_power_frac"),
        ge=0, le=1, description="GPU power while idle, share of TDP [0-1]"
    )


class Operations(BaseModel):
    """Staff, maintenance, checkpointing and the value of time."""

    model_config = _STRICT
    cluster_ops_cost_per_node_year: float = Field(
        default_factory=_d("operations", "cluster_ops_cost_per_node_year"),
        ge=0,
        le=1e7,
        description="systems staff cost per server per year [currency]",
    )
    network_ops_cost_per_node_year: float = Field(
        default_factory=_d("operations", "network_ops_cost_per_node_year"),
        ge=0,
        le=1e7,
        description="network staff cost per server per year for plain TCP Ethernet [currency]; "
        "scaled by the fabric's ops factor",
    )
    maintenance_frac_per_year: float = Field(
        default_factory=_d("operations", "maintenance_frac_per_year"),
        ge=0,
        le=0.5,
        description="support contracts and spares per year, share of capex [0-0.5]",
    )
    checkpoint_write_gbs_per_node: float = Field(
        default_factory=_d("operations", "checkpoint_write_gbs_per_node"),
        ge=0.01,
        le=1_000,
        description="checkpoint write bandwidth per server [GB/s]",
    )
    restart_minutes: float = Field(
        default_factory=_d("operations", "restart_minutes"),
        ge=0,
        le=1_440,
        description="time to detect a failure, reschedule and reload [min]",
    )
    value_of_cluster_hour: float | None = Field(
        None,
        ge=0,
        le=1e8,
        description="cost of one lost cluster-hour [currency/h]; empty = GPU rental rate × GPUs",
    )


class Finance(BaseModel):
    """Horizon, discounting and payment."""

    model_config = _STRICT
    horizon_years: int = Field(
        default_factory=_d("finance", "horizon_years", int), ge=1, le=15, description="TCO horizon [years]"
    )
    discount_rate: float = Field(
        default_factory=_d("finance", "discount_rate"), ge=0, le=0.5, description="yearly discount rate for NPV [0-0.5]"
    )
    payment: Literal["upfront", "instalments"] = Field("upfront", description="how capex is paid")
    instalment_months: int = Field(
        default_factory=_d("finance", "instalment_months", int), ge=1, le=180, description="instalment term [months]"
    )
    instalment_rate_annual: float = Field(
        default_factory=_d("finance", "instalment_rate_annual"),
        ge=0, le=0.5, description="instalment interest rate per year [0-0.5]"
    )
    residual_value_frac: float = Field(
        default_factory=_d("finance", "residual_value_frac"),
        ge=0,
        le=0.9,
        description="resale value at the end of the horizon, share of capex [0-0.9]",
    )


class Context(BaseModel):
    """Facts the seed article's decision tree asks about (not used by the cost model)."""

    model_config = _STRICT
    budget_tight: bool = Field(False, description="initial budget is tight")
    existing_ethernet: bool = Field(False, description="a good Ethernet fabric already exists")
    ops_team: Literal["weak", "strong"] = Field("strong", description="network operations team")


# Catalog quantities a scenario may override (the Assumptions page), with hard bounds.
# An override replaces the catalog's typical value and collapses its range to that value.
FABRIC_OVERRIDE_BOUNDS: dict[str, tuple[float, float]] = {
    "port_gbps": (1.0, 10_000.0),
    "latency_us": (0.0, 10_000.0),
    "hop_latency_us": (0.0, 100.0),
    "efficiency": (0.001, 1.0),
    "loss_rate": (0.0, 0.5),
    "mtu_bytes": (256.0, 65_536.0),
    "tcp_flows_per_port": (1.0, 1_024.0),
    "cpu_cores_per_100gbps": (0.0, 1_000.0),
    "nic_power_w": (0.0, 10_000.0),
    "switch_radix": (4.0, 4_096.0),
    "switch_power_w": (0.0, 1e6),
    "optic_power_w": (0.0, 1_000.0),
    "cable_power_w": (0.0, 1_000.0),
    "ops_factor": (0.0, 100.0),
    "interruption_rate_per_endpoint_hour": (0.0, 1.0),
}
# host power and server price are Cluster inputs (cluster.host_power_kw, cluster.server_price);
# they are not overridable here, so each number has one place to change it.
GPU_OVERRIDE_BOUNDS: dict[str, tuple[float, float]] = {
    "peak_bf16_tflops": (0.001, 1e6),
    "tdp_w": (1.0, 1e5),
    "intra_node_gbs": (0.001, 1e5),
    "host_cpu_cores": (1.0, 10_000.0),
}
FABRIC_PRICE_BOUNDS: dict[str, tuple[float, float]] = {
    name: (0.0, 1e9) for name in ("nic_price", "switch_price", "cable_price", "optic_price", "install_per_node")
}
GPU_PRICE_BOUNDS: dict[str, tuple[float, float]] = {"rental_per_gpu_hour": (0.0, 1e6)}
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
    "cabling": ("cable_price", "optic_price"),
    "installation": ("install_per_node",),
}
MAX_DISCOUNT_PCT = 95.0
BOOK_GPU_PRICE_BOUNDS: dict[str, tuple[float, float]] = {
    name: (0.0, 1e9) for name in ("server_price", "gpu_price", "rental_per_gpu_hour")
}


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
            if not 0 <= pct <= MAX_DISCOUNT_PCT:
                raise FieldError(
                    f"discounts.{category}", f"{pct:g} is out of range; allowed: ≥ 0 and ≤ {MAX_DISCOUNT_PCT:g} [%]",
                    "out_of_range", got=f"{pct:g}", lo="0", hi=f"{MAX_DISCOUNT_PCT:g}",
                )
        _check_table(self.gpus, BOOK_GPU_PRICE_BOUNDS, cat.gpus, "gpus")
        _check_table(self.fabrics, FABRIC_PRICE_BOUNDS, cat.fabrics, "fabrics")
        return self


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
        if self.workload.parallelism == "pipeline" and self.workload.pipeline_stages > self.cluster.nodes:
            raise FieldError(
                "workload.pipeline_stages", f"at most the number of nodes ({self.cluster.nodes}); "
                "each stage runs on at least one node", "stages_above_nodes", hi=str(self.cluster.nodes),
            )
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
