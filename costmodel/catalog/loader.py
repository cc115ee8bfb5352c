"""Loading and validating the data files: references, GPUs, fabrics, price books, defaults.

Every number in ``costmodel/data`` is a :class:`Quantity` — a typical value, an optional
``low``/``high`` range, a ``source`` key of ``references.yaml`` and an ``as_of`` date. The files
are read once, on first use (``load_catalog`` is cached; importing the model reads no file), with
PyYAML's safe loader only (libyaml's ``CSafeLoader``: the same documents, parsed ≈ 7× faster).

The packaged catalog is the default everywhere. Another catalog (a test's, ORBIT-style: the
packaged files copied and edited in a temporary directory) is passed in: ``load_catalog(path)``,
then ``costmodel.scenario_from_dict(data, catalog=cat)`` validates names against it (the pydantic
validators find it in the validation context, :func:`catalog_in`) and
``costmodel.evaluate(scenario, catalog=cat)`` computes with it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from costmodel.catalog import cn_prices
from costmodel.catalog import cooling as cooling_kinds
from costmodel.catalog.cooling import CoolingKind, CoolingSpec
from costmodel.catalog.price_schema import PriceBook
from costmodel.catalog.quantity import Quantity
from costmodel.errors import CatalogError

DATA_DIR = Path(__file__).resolve().parents[1] / "data"  # costmodel/data: every data file of the model
MARKET_FILE = "cn_market.yaml"  # the China-market book, built on the public book (cn_prices)
FAMILIES = ("tcp", "roce", "iwarp", "infiniband")
Family = Literal["tcp", "roce", "iwarp", "infiniband"]
LossModel = Literal["none", "go_back_n", "mathis"]
#: How a fabric spreads flows over the tiers above the leaf (:mod:`costmodel.physics.congestion`).
Routing = Literal["ecmp", "adaptive", "ib_adaptive", "tcp"]


class Reference(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["measurement", "datasheet", "market", "standard", "assumption", "vendor-claim", "seed-claim"]
    title: str
    title_zh: str = ""  # Chinese rendering of ``title`` (same numbers, cited names verbatim)
    url: str = ""


class GpuSpec(BaseModel):
    """Technical figures of one GPU and its reference server (units in the names)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    peak_bf16_tflops: Quantity
    peak_fp8_tflops: Quantity | None = None  # dense FP8 peak; None = the part has no FP8 tensor cores
    peak_fp4_tflops: Quantity | None = None  # dense FP4 peak; None = none
    tdp_w: Quantity
    memory_gb: Quantity
    intra_node_gbs: Quantity
    host_power_kw: Quantity
    host_cpu_cores: Quantity
    default_gpus_per_node: Quantity
    default_nics_per_node: Quantity
    nic_pcie_gen: Quantity  # PCIe generation of each compute NIC's host link (its narrowest PCIe hop)
    nic_pcie_lanes: Quantity  # its lanes
    scaleup_domain_gpus: Quantity  # GPUs sharing one NVLink / Infinity Fabric / UB domain (8 on HGX, 72 on NVL72)
    cooling_required: CoolingKind | None = None  # "liquid": the part is sold only liquid-cooled; None = any
    fabrics: tuple[str, ...] | None = None  # fabric ids its server can carry; None = every fabric
    name_zh: str = ""  # Chinese display name where it differs ("" = ``name``)

    def peak_tflops(self, precision: str) -> float | None:
        """Dense tensor-core peak at ``precision`` (bf16, fp8, fp4) [TFLOP/s]; None where the part lacks it."""
        q = {"bf16": self.peak_bf16_tflops, "fp8": self.peak_fp8_tflops, "fp4": self.peak_fp4_tflops}[precision]
        return None if q is None else q.typical

    def carries(self, fabric: str) -> bool:
        """Whether this part's server can carry ``fabric`` (a fabrics.yaml id; no list = every fabric)."""
        return self.fabrics is None or fabric in self.fabrics


class Optics(BaseModel):
    """The optical modules of a fabric's reference design (see fabrics.yaml ``optics``, media.yaml ``modules``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    switch_module: str  # module type at the switch ends, a key of media.yaml ``modules``
    node_module: str  # module type at the server end
    #: node-to-leaf links: all transceivers and fibre (the reference design's), or each medium by its length
    node_links: Literal["optical", "by_length"]
    source: str
    as_of: str
    note: str | None = None


class Module(BaseModel):
    """One optical module type: its names and the links it serves [count]."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    name_zh: str
    ports: Quantity


class FabricSpec(BaseModel):
    """Technical figures of one fabric generation (see fabrics.yaml for definitions)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    family: Family
    name: str
    name_zh: str
    short: str = ""  # chart label, e.g. "IB NDR 400G" ("" = the full name)
    short_zh: str = ""  # its Chinese form where it differs ("" = ``short``)
    loss_model: LossModel
    routing: Routing
    in_network_reduction: bool  # the switches reduce all-reduce data in the network (SHARPv3 and later)
    #: NCCL's network transport on this fabric: its IB/RoCE verbs transport, or its TCP socket transport
    #: (plain TCP; iWARP, whose NICs lack the RDMA write-with-immediate verbs needs: reference nccl-net-ib)
    nccl_transport: Literal["verbs", "socket"]
    optics: Optics  # optical modules at both ends and the node-link media policy
    port_gbps: Quantity
    latency_us: Quantity
    hop_latency_us: Quantity
    efficiency: Quantity
    alltoall_efficiency: Quantity
    loss_rate: Quantity
    mtu_bytes: Quantity
    tcp_flows_per_port: Quantity
    cpu_cores_per_100gbps: Quantity
    nic_power_w: Quantity
    switch_radix: Quantity
    switch_power_w: Quantity
    optic_power_w: Quantity
    cable_power_w: Quantity
    ops_factor: Quantity
    interruption_rate_per_endpoint_hour: Quantity
    spine_efficiency: Quantity
    sharp_speedup: Quantity
    collective_timeout_rate_per_gpu_hour: Quantity  # soft failures: hung collectives per GPU-hour
    setup_hours_per_run: Quantity  # cluster hours per run before productive training [h]

    @property
    def socket_fallback(self) -> bool:
        """True where the fabric has RDMA hardware but NCCL runs its socket transport on it (no verbs
        path, e.g. iWARP): ``nccl_transport`` is socket on a family other than plain TCP."""
        return self.nccl_transport == "socket" and self.family != "tcp"

    @model_validator(mode="after")
    def _sharp(self) -> FabricSpec:
        lo, hi = self.sharp_speedup.lo, self.sharp_speedup.hi
        if not 1.0 <= lo <= hi <= 2.0:
            raise ValueError(f"sharp_speedup must lie in [1, 2] (wire bytes at most halve), got {lo}-{hi}")
        if not self.in_network_reduction and (lo, hi) != (1.0, 1.0):
            raise ValueError("sharp_speedup must be 1 on a fabric without in_network_reduction")
        return self


class MediaRate(BaseModel):
    """Link media at one port rate (see media.yaml): reach of each class [m], power per link [W]."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    dac_reach_m: Quantity
    aec_reach_m: Quantity
    aoc_reach_m: Quantity
    aec_power_w: Quantity
    aoc_power_w: Quantity

    @model_validator(mode="after")
    def _ordered(self) -> MediaRate:
        reach = (self.dac_reach_m.typical, self.aec_reach_m.typical, self.aoc_reach_m.typical)
        if not 0 <= reach[0] <= reach[1] <= reach[2]:
            raise ValueError(f"need 0 <= dac <= aec <= aoc reach, got {reach}")
        return self


class Layout(BaseModel):
    """The rack layout link lengths come from (see media.yaml), lengths [m]."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    rack_pitch_m: Quantity
    row_pitch_m: Quantity
    racks_per_row: Quantity
    vertical_run_m: Quantity
    service_loop_m: Quantity


class KernelSpec(BaseModel):
    """Kernel figures of one GPU (see gemm_efficiency.yaml): SMs, memory bandwidth [GB/s], measured
    matmul share of peak, fused attention's share of peak."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    arch: Literal["ampere", "hopper", "blackwell", "cdna3", "cdna4", "davinci"]
    sm_count: Quantity
    hbm_gbs: Quantity
    mamf_share: Quantity
    attention_efficiency: Quantity


class Catalog(BaseModel):
    """Everything read from ``costmodel/data``: the single source of default numbers."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    references: dict[str, Reference]
    gpus: dict[str, GpuSpec]
    fabrics: dict[str, FabricSpec]
    fabric_seed_claims: dict
    media: dict[int, MediaRate]  # by port rate [Gb/s]
    modules: dict[str, Module]  # optical module types by id
    layout: Layout
    price_books: dict[str, PriceBook]
    model: dict[str, Quantity]
    scenario_defaults: dict[str, dict[str, Quantity]]
    fx_per_usd: dict[str, Quantity]
    blank_scenario: dict
    seed_rule: dict[str, Quantity]
    kernels: dict[str, KernelSpec]  # by GPU id (gemm_efficiency.yaml)
    kernel_constants: dict[str, Quantity]
    cooling: dict[CoolingKind, CoolingSpec]  # by kind (cooling.yaml)

    def default(self, group: str, name: str) -> float:
        """Typical default of scenario input ``group.name``."""
        return self.scenario_defaults[group][name].typical

    def media_for(self, port_gbps: float) -> MediaRate:
        """The media row of the smallest listed rate >= ``port_gbps`` (the highest above the table)."""
        rates = sorted(self.media)
        return self.media[next((r for r in rates if r >= port_gbps), rates[-1])]

    def constant(self, name: str) -> float:
        """Typical value of model constant ``name``."""
        return self.model[name].typical

    def price_book(self, book_id: str) -> PriceBook:
        """The price book ``book_id``; raises :class:`CatalogError` naming the known ids."""
        try:
            return self.price_books[book_id]
        except KeyError:
            known = ", ".join(sorted(self.price_books))
            raise CatalogError(f"unknown price book {book_id!r}; known: {known}") from None


def _read_yaml(path: Path) -> dict:
    try:
        with path.open(encoding="utf-8") as fh:
            data = yaml.load(fh, Loader=yaml.CSafeLoader)
    except (OSError, yaml.YAMLError) as exc:
        raise CatalogError(f"cannot read {path.name}: {exc}") from exc
    if not isinstance(data, dict):
        raise CatalogError(f"{path.name}: expected a mapping at the top level")
    return data


def _check_sources(catalog: Catalog) -> None:
    """Every quantity must name a known reference and every item must be priced."""

    def walk(obj, where: str):
        if isinstance(obj, Quantity):
            if obj.source not in catalog.references:
                raise CatalogError(f"{where}: unknown source key {obj.source!r}")
        elif isinstance(obj, BaseModel):
            for name in type(obj).model_fields:
                walk(getattr(obj, name), f"{where}.{name}")
        elif isinstance(obj, dict):
            for key, val in obj.items():
                walk(val, f"{where}.{key}")

    for field in ("gpus", "fabrics", "media", "modules", "layout", "price_books", "model", "scenario_defaults",
                  "fx_per_usd", "seed_rule", "kernels", "kernel_constants", "cooling"):
        walk(getattr(catalog, field), field)
    for fid, fab in catalog.fabrics.items():
        optics = fab.optics
        if optics.source not in catalog.references:
            raise CatalogError(f"fabrics.{fid}.optics: unknown source key {optics.source!r}")
        unknown = {optics.switch_module, optics.node_module} - set(catalog.modules)
        if unknown:
            raise CatalogError(f"fabrics.{fid}.optics: unknown module {sorted(unknown)}; "
                               f"known: {sorted(catalog.modules)}")
    for book in catalog.price_books.values():
        missing = (set(catalog.gpus) - set(book.gpus)) | (set(catalog.fabrics) - set(book.fabrics))
        extra = (set(book.gpus) - set(catalog.gpus)) | (set(book.fabrics) - set(catalog.fabrics))
        if missing or extra:
            raise CatalogError(
                f"price book {book.id!r}: missing {sorted(missing)}, unknown {sorted(extra)}"
            )
    cooling_kinds.check(catalog.cooling)
    for gid, gpu in catalog.gpus.items():
        unknown = set(gpu.fabrics or ()) - set(catalog.fabrics)
        if unknown:
            raise CatalogError(f"gpus.{gid}.fabrics: unknown fabric {sorted(unknown)}")
    if set(catalog.kernels) != set(catalog.gpus):
        raise CatalogError(f"gemm_efficiency.yaml: kernel figures for {sorted(catalog.kernels)}, GPUs "
                           f"{sorted(catalog.gpus)}: every GPU needs one entry")


def _add_market_books(data_dir: Path, books: dict, defaults: dict, fab: dict) -> None:
    """Add the China-market book (``cn_market.yaml``, built on its base book by :mod:`.cn_prices`)."""
    path = data_dir / MARKET_FILE
    if not path.exists():
        return
    market = _read_yaml(path)
    try:
        base = books[market["base"]]
        fx = defaults["fx_per_usd"]
        rate = fx[market["currency"]]["typical"] / fx[base["currency"]]["typical"]
        books[market["id"]] = cn_prices.build(base, market, rate, fab["fabrics"])
    except (KeyError, TypeError) as exc:
        raise CatalogError(f"{MARKET_FILE}: {exc!r}") from exc


@functools.lru_cache(maxsize=4)
def load_catalog(data_dir: Path = DATA_DIR) -> Catalog:
    """Read and validate every data file under ``data_dir`` (default: the packaged data; cached, on
    first use; the result is frozen)."""
    refs = _read_yaml(data_dir / "references.yaml")["references"]
    gpus = _read_yaml(data_dir / "gpus.yaml")["gpus"]
    fab = _read_yaml(data_dir / "fabrics.yaml")
    defaults = _read_yaml(data_dir / "defaults.yaml")
    media = _read_yaml(data_dir / "media.yaml")
    kernels = _read_yaml(data_dir / "gemm_efficiency.yaml")
    cooling = _read_yaml(data_dir / "cooling.yaml")["cooling"]
    books = {}
    for path in sorted((data_dir / "pricebooks").glob("*.yaml")):
        raw = _read_yaml(path)
        books[raw.get("id", path.stem)] = raw
    _add_market_books(data_dir, books, defaults, fab)
    try:
        catalog = Catalog(
            references=refs,
            gpus=gpus,
            fabrics=fab["fabrics"],
            fabric_seed_claims=fab.get("seed_claims", {}),
            media={int(rate): row for rate, row in media["rates"].items()},
            modules=media["modules"],
            layout=media["layout"],
            price_books=books,
            model=defaults["model"],
            scenario_defaults=defaults["scenario"],
            fx_per_usd=defaults["fx_per_usd"],
            blank_scenario=defaults["blank_scenario"],
            seed_rule=defaults["seed_rule"],
            kernels=kernels["gpus"],
            kernel_constants=kernels["constants"],
            cooling=cooling,
        )
    except (ValidationError, KeyError) as exc:
        raise CatalogError(f"catalog in {data_dir} is invalid: {exc}") from exc
    _check_sources(catalog)
    return catalog


#: Key of the catalog in a pydantic validation context (``model_validate(data, context=…)``).
CONTEXT_KEY = "catalog"


def validation_context(catalog: Catalog | None) -> dict | None:
    """The pydantic validation context that checks names against ``catalog`` (None: the packaged one)."""
    return None if catalog is None else {CONTEXT_KEY: catalog}


def catalog_in(info) -> Catalog:
    """The catalog of a validation (``info``: pydantic's ``ValidationInfo``): the one in its context,
    else the packaged catalog."""
    context = getattr(info, "context", None)
    catalog = context.get(CONTEXT_KEY) if isinstance(context, dict) else None
    return catalog if catalog is not None else load_catalog()
