"""Turn a validated :class:`~costmodel.schema.Scenario` plus the catalog into model arrays.

The model never reads a scenario or a catalog directly: it reads an :class:`Inputs` — one
float64 array per quantity, in SI-like units — and a :class:`Structure` of the few choices
that change the shape of the computation. Scenario-level arrays have shape ``(S, 1)``,
fabric-level ones ``(1, F)``; a Monte Carlo batch or a sweep only changes ``S``.

``uncertain`` lists, for every quantity with a known range, its ``(low, typical, high)``
arrays; Monte Carlo and the tornado draw or swing exactly these.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from . import price_books
from .catalog import Catalog, Quantity, load_catalog
from .performance import LOSS_MODEL_CODES, hidden_size
from .schema import Scenario

US = 1e-6
GIGA = 1e9
TERA = 1e12
MIB = 2**20
SECONDS_PER_MINUTE = 60.0


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


@dataclass(frozen=True)
class Inputs:
    """Model inputs as broadcastable float64 arrays (units in the names or below)."""

    # cluster, shape (S, 1)
    nodes: np.ndarray  # [count]
    gpus_per_node: np.ndarray  # [count]
    nics_per_node: np.ndarray  # [count]
    peak_flops: np.ndarray  # per GPU [FLOP/s]
    gpu_tdp_kw: np.ndarray  # [kW]
    intra_node_Bps: np.ndarray  # [B/s]
    host_power_kw: np.ndarray  # [kW]
    host_cpu_cores: np.ndarray  # [count]
    host_cpu_cost_share: np.ndarray  # [0-1]
    host_cpu_power_share: np.ndarray  # [0-1]
    server_price: np.ndarray  # [currency]
    rental_per_gpu_hour: np.ndarray  # [currency/GPU-h]
    # workload
    params: np.ndarray  # [parameters]
    tokens_per_run: np.ndarray  # [tokens]
    batch_tokens: np.ndarray  # [tokens/step]
    compute_efficiency: np.ndarray  # [0-1]
    flops_per_param_token: np.ndarray  # [FLOP]
    grad_bytes: np.ndarray  # [B]
    act_bytes: np.ndarray  # [B]
    hidden: np.ndarray  # [elements]
    pipeline_stages: np.ndarray  # [count]
    microbatches: np.ndarray  # [count]
    runs_per_year: np.ndarray  # [count/year]
    overlap_frac: np.ndarray  # [0-1]
    bucket_bytes: np.ndarray  # [B]
    nccl_base_latency_s: np.ndarray  # [s]
    mathis_c: np.ndarray  # [-]
    # facility and operations
    pue: np.ndarray  # [ratio]
    electricity_price: np.ndarray  # [currency/kWh]
    gpu_busy_frac: np.ndarray  # [0-1.2]
    gpu_idle_frac: np.ndarray  # [0-1]
    cluster_ops_per_node_year: np.ndarray  # [currency]
    network_ops_per_node_year: np.ndarray  # [currency]
    maintenance_frac: np.ndarray  # [1/year]
    ckpt_write_Bps_per_node: np.ndarray  # [B/s]
    ckpt_bytes_per_param: np.ndarray  # [B]
    restart_s: np.ndarray  # [s]
    value_of_cluster_hour: np.ndarray  # [currency/h]; NaN = rental × GPUs
    gpu_fail_per_hour: np.ndarray  # per GPU [1/h]
    node_fail_per_hour: np.ndarray  # per node [1/h]
    # finance
    discount_rate: np.ndarray  # [1/year]
    instalment_months: np.ndarray  # [months]
    instalment_rate: np.ndarray  # [1/year]
    residual_frac: np.ndarray  # [0-1]
    # fabric, shape (1, F)
    loss_model: np.ndarray  # code, see performance.LOSS_MODEL_CODES
    port_bps: np.ndarray  # [bit/s]
    latency_s: np.ndarray  # [s]
    hop_latency_s: np.ndarray  # [s]
    efficiency: np.ndarray  # [0-1]
    loss_rate: np.ndarray  # [0-1]
    mtu_bytes: np.ndarray  # [B]
    tcp_flows: np.ndarray  # [count]
    cpu_cores_per_100gbps: np.ndarray  # [cores]
    nic_power_w: np.ndarray  # [W]
    switch_radix: np.ndarray  # [ports]
    switch_power_w: np.ndarray  # [W]
    optic_power_w: np.ndarray  # [W]
    cable_power_w: np.ndarray  # per node link [W]
    ops_factor: np.ndarray  # [ratio]
    net_fail_per_endpoint_hour: np.ndarray  # [1/h]
    nic_price: np.ndarray  # [currency]
    switch_price: np.ndarray  # [currency]
    cable_price: np.ndarray  # [currency]
    optic_price: np.ndarray  # [currency]
    install_per_node: np.ndarray  # [currency]

    def replace(self, **changes: np.ndarray) -> Inputs:
        """A copy with some arrays replaced."""
        return dataclasses.replace(self, **changes)



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


def build(scenario: Scenario, catalog: Catalog | None = None) -> Built:
    """Arrays for one scenario: scenario-level ``(1, 1)``, fabric-level ``(1, F)``."""
    cat = catalog or load_catalog()
    book = price_books.for_scenario(scenario, cat)
    ov = scenario.overrides
    gpu_id = scenario.cluster.gpu
    gpu = _apply(cat.gpus[gpu_id], ov.gpus.get(gpu_id))
    gpu_prices = _apply(book.gpus[gpu_id], ov.gpu_prices.get(gpu_id))
    fab_specs = [_apply(cat.fabrics[f], ov.fabrics.get(f)) for f in scenario.fabrics]
    fab_prices = [_apply(book.fabrics[f], ov.fabric_prices.get(f)) for f in scenario.fabrics]
    uncertain: list[Uncertain] = []

    def q(name: str, quantity: Quantity, scale: float = 1.0, override=None) -> np.ndarray:
        """A scenario-level quantity; registered as uncertain unless the user set it."""
        if override is not None:
            return _scalar(override * scale)
        typ = _scalar(quantity.typical * scale)
        if quantity.lo != quantity.hi:
            uncertain.append(
                Uncertain(name, name, _scalar(quantity.lo * scale), typ,
                          _scalar(quantity.hi * scale), per_fabric=False)
            )
        return typ

    def fq(name: str, items: list, attr: str, scale: float = 1.0) -> np.ndarray:
        """A fabric-level quantity, one column per fabric."""
        quants = [getattr(item, attr) for item in items]
        typ = _col([x.typical * scale for x in quants])
        if any(x.lo != x.hi for x in quants):
            uncertain.append(
                Uncertain(name, name, _col([x.lo * scale for x in quants]), typ,
                          _col([x.hi * scale for x in quants]), per_fabric=True)
            )
        return typ

    c, w, fa, op, fi = (scenario.cluster, scenario.workload, scenario.facility,
                        scenario.operations, scenario.finance)
    model = cat.model
    k_flops = model["flops_per_param_token_full_recompute" if w.full_recompute
                    else "flops_per_param_token"]
    overlap = model["fsdp_overlap_frac_of_compute" if w.parallelism == "fsdp"
                    else "dp_overlap_frac_of_compute"]
    params = w.model_params_b * GIGA
    hidden = (w.hidden_size if w.hidden_size is not None
              else float(hidden_size(params, model["d_model_per_layer"].typical)))
    vch = np.nan if op.value_of_cluster_hour is None else op.value_of_cluster_hour
    inputs = Inputs(
        nodes=_scalar(c.nodes),
        gpus_per_node=_scalar(c.gpus_per_node or gpu.default_gpus_per_node.typical),
        nics_per_node=_scalar(c.nics_per_node or gpu.default_nics_per_node.typical),
        peak_flops=q("peak_flops", gpu.peak_bf16_tflops, TERA),
        gpu_tdp_kw=q("gpu_tdp_kw", gpu.tdp_w, 1e-3),
        intra_node_Bps=q("intra_node_Bps", gpu.intra_node_gbs, GIGA),
        host_power_kw=q("host_power_kw", gpu.host_power_kw, override=c.host_power_kw),
        host_cpu_cores=q("host_cpu_cores", gpu.host_cpu_cores),
        host_cpu_cost_share=_scalar(c.host_cpu_cost_share),
        host_cpu_power_share=_scalar(c.host_cpu_power_share),
        server_price=q("server_price", gpu_prices.server_price, override=c.server_price),
        rental_per_gpu_hour=q("rental_per_gpu_hour", gpu_prices.rental_per_gpu_hour),
        params=_scalar(params),
        tokens_per_run=_scalar(w.tokens_per_run_b * GIGA),
        batch_tokens=_scalar(w.global_batch_tokens_m * 1e6),
        compute_efficiency=_scalar(w.compute_efficiency),
        flops_per_param_token=q("flops_per_param_token", k_flops),
        grad_bytes=_scalar(w.grad_bytes),
        act_bytes=q("act_bytes", model["activation_bytes"]),
        hidden=_scalar(hidden),
        pipeline_stages=_scalar(w.pipeline_stages if w.parallelism == "pipeline" else 1),
        microbatches=_scalar(w.pipeline_microbatches),
        runs_per_year=_scalar(w.runs_per_year),
        overlap_frac=q("overlap_frac", overlap),
        bucket_bytes=q("bucket_bytes", model["bucket_mib"], MIB),
        nccl_base_latency_s=q("nccl_base_latency_s", model["nccl_base_latency_us"], US),
        mathis_c=q("mathis_c", model["mathis_constant"]),
        pue=_scalar(fa.pue),
        electricity_price=_scalar(fa.electricity_price_per_kwh),
        gpu_busy_frac=_scalar(fa.gpu_busy_power_frac),
        gpu_idle_frac=_scalar(fa.gpu_idle_power_frac),
        cluster_ops_per_node_year=_scalar(op.cluster_ops_cost_per_node_year),
        network_ops_per_node_year=_scalar(op.network_ops_cost_per_node_year),
        maintenance_frac=_scalar(op.maintenance_frac_per_year),
        ckpt_write_Bps_per_node=_scalar(op.checkpoint_write_gbs_per_node * GIGA),
        ckpt_bytes_per_param=q("ckpt_bytes_per_param", model["checkpoint_bytes_per_param"]),
        restart_s=_scalar(op.restart_minutes * SECONDS_PER_MINUTE),
        value_of_cluster_hour=_scalar(vch),
        gpu_fail_per_hour=q("gpu_fail_per_hour", model["gpu_failure_rate_per_gpu_hour"]),
        node_fail_per_hour=q("node_fail_per_hour", model["node_failure_rate_per_node_hour"]),
        discount_rate=_scalar(fi.discount_rate),
        instalment_months=_scalar(fi.instalment_months),
        instalment_rate=_scalar(fi.instalment_rate_annual),
        residual_frac=_scalar(fi.residual_value_frac),
        loss_model=_col([LOSS_MODEL_CODES[f.loss_model] for f in fab_specs]),
        port_bps=fq("port_bps", fab_specs, "port_gbps", GIGA),
        latency_s=fq("latency_s", fab_specs, "latency_us", US),
        hop_latency_s=fq("hop_latency_s", fab_specs, "hop_latency_us", US),
        efficiency=fq("efficiency", fab_specs, "efficiency"),
        loss_rate=fq("loss_rate", fab_specs, "loss_rate"),
        mtu_bytes=fq("mtu_bytes", fab_specs, "mtu_bytes"),
        tcp_flows=fq("tcp_flows", fab_specs, "tcp_flows_per_port"),
        cpu_cores_per_100gbps=fq("cpu_cores_per_100gbps", fab_specs, "cpu_cores_per_100gbps"),
        nic_power_w=fq("nic_power_w", fab_specs, "nic_power_w"),
        switch_radix=fq("switch_radix", fab_specs, "switch_radix"),
        switch_power_w=fq("switch_power_w", fab_specs, "switch_power_w"),
        optic_power_w=fq("optic_power_w", fab_specs, "optic_power_w"),
        cable_power_w=fq("cable_power_w", fab_specs, "cable_power_w"),
        ops_factor=fq("ops_factor", fab_specs, "ops_factor"),
        net_fail_per_endpoint_hour=fq("net_fail_per_endpoint_hour", fab_specs,
                                      "interruption_rate_per_endpoint_hour"),
        nic_price=fq("nic_price", fab_prices, "nic_price"),
        switch_price=fq("switch_price", fab_prices, "switch_price"),
        cable_price=fq("cable_price", fab_prices, "cable_price"),
        optic_price=fq("optic_price", fab_prices, "optic_price"),
        install_per_node=fq("install_per_node", fab_prices, "install_per_node"),
    )
    structure = Structure(
        horizon_years=fi.horizon_years,
        parallelism=w.parallelism,
        payment=fi.payment,
        schedule=w.schedule,
        scope=scenario.scope,
        fabric_ids=tuple(scenario.fabrics),
        families=tuple(f.family for f in fab_specs),
        baseline_index=scenario.fabrics.index(scenario.baseline),
        currency=book.currency,
    )
    return Built(inputs, structure, uncertain)
