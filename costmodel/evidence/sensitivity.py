"""Bandwidth sensitivity: a published run's efficiency against its inter-node bandwidth per GPU.

A run of ``data/training_runs.yaml`` is held fixed — GPU and its kernel efficiency (from the
layer's matrix shapes), model, batch, layout, node count and the run's
fabric latencies — and only the *achievable* inter-node bandwidth per GPU changes: the NIC
line rate (or its host slot, where that binds) times the transport's efficiency and loss factor,
divided among the node's GPUs (``r · min(port/8, slot) · η / g``). The whole grid is one call of
:func:`costmodel.pipeline.tco.compute` with an ``(S, 1)`` port-speed array (efficiency 1, no loss,
no host slot), plus one row at unlimited bandwidth.

The fabrics of ``data/sensitivity.yaml`` (``markers``) are evaluated as the run's own
scenarios (one :func:`~costmodel.api.evaluate` with all of them) and placed at *their*
achievable bandwidth per GPU; they sit on the curve up to their own latencies.

Units: bandwidth [GB/s] per GPU (10⁹ bytes/s), times [s], shares [0-1].
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np
import yaml

from costmodel.api import evaluate
from costmodel.catalog.loader import Catalog
from costmodel.errors import ScenarioError
from costmodel.evidence.runs import catalog_of, load_runs, scenario_of
from costmodel.physics.performance import LOSS_NONE
from costmodel.pipeline.inputs import build
from costmodel.pipeline.tco import compute
from costmodel.scenario.schema import Scenario

GIGA = 1e9
BITS_PER_BYTE = 8.0


@lru_cache(maxsize=1)
def settings() -> dict:
    """``data/sensitivity.yaml`` as stored: grid, knee share, reference runs, markers, Calculon."""
    text = resources.files("costmodel").joinpath("data/sensitivity.yaml").read_text(encoding="utf-8")
    return yaml.load(text, Loader=yaml.CSafeLoader)


def bandwidth_grid(low: float | None = None, high: float | None = None, points: int | None = None) -> np.ndarray:
    """Log-spaced achievable inter-node bandwidths per GPU [GB/s]; defaults from the data file.

    >>> g = bandwidth_grid(1.0, 100.0, 3)
    >>> g.tolist()
    [1.0, 10.0, 100.0]
    """
    g = settings()["grid"]
    lo = float(g["low_gbs_per_gpu"] if low is None else low)
    hi = float(g["high_gbs_per_gpu"] if high is None else high)
    n = int(g["points"] if points is None else points)
    if not (lo > 0 and hi > lo and np.isfinite(hi)) or n < 2:
        raise ScenarioError([("bandwidth grid", f"need 0 < low < high (finite) and at least 2 points "
                                                f"(got low={lo}, high={hi}, points={n})")])
    return np.geomspace(lo, hi, n)


@dataclass(frozen=True)
class Curve:
    """The model's efficiency of one run over a bandwidth grid; arrays of shape ``(S,)``."""

    run_id: str
    fabric: str  # the run's fabric, whose latencies the curve keeps
    gbs_per_gpu: np.ndarray  # achievable inter-node bandwidth per GPU [GB/s]
    mfu: np.ndarray  # model FLOPs utilisation [0-1]
    hfu: np.ndarray  # hardware FLOPs utilisation [0-1]
    compute_share: np.ndarray  # T_compute / T_step [0-1]
    step_time_s: np.ndarray  # [s]
    exposed_share: np.ndarray  # network time on the critical path / step [0-1]
    unbounded_mfu: float  # MFU at unlimited bandwidth (latencies kept)
    unbounded_compute_share: float  # T_compute / T_step at unlimited bandwidth
    knee_gbs: float  # least bandwidth with MFU ≥ knee_share × unbounded_mfu [GB/s]; NaN off the grid
    knee_share: float


@dataclass(frozen=True)
class Marker:
    """One fabric of the catalog on the run: where it sits and what the model gives it."""

    fabric: str
    gbs_per_gpu: float  # achievable inter-node bandwidth per GPU [GB/s]
    line_gbs_per_gpu: float  # NIC line rate per GPU [GB/s]
    mfu: float
    hfu: float
    compute_share: float
    step_time_s: float


def _run(run_id: str) -> dict:
    runs = {r["id"]: r for r in load_runs()}
    if run_id not in runs:
        raise ScenarioError([("run", f"unknown run {run_id!r}; one of {', '.join(sorted(runs))}")])
    return runs[run_id]


def reference(run_id: str, fabrics: list[str] | None = None) -> tuple[Scenario, Catalog]:
    """The scenario (with ``fabrics``, default the run's own) and catalog of a published run, its kernel
    efficiency from the matrix shapes, as in the runs table."""
    run = _run(run_id)
    scn = scenario_of(run)
    if fabrics:
        scn = scn.model_copy(update={"fabrics": list(fabrics), "baseline": fabrics[0]})
        scn = Scenario.model_validate(scn.model_dump())
    return scn, catalog_of(run)


def _knee(x: np.ndarray, y: np.ndarray, target: float) -> float:
    """The least ``x`` where the non-decreasing ``y`` reaches ``target``, interpolated in log ``x``."""
    above = np.flatnonzero(y >= target)
    if above.size == 0:
        return float("nan")
    j = int(above[0])
    if j == 0:
        return float(x[0])
    lx = np.log(x[j - 1 : j + 1])
    frac = (target - y[j - 1]) / (y[j] - y[j - 1])
    return float(np.exp(lx[0] + frac * (lx[1] - lx[0])))


def curve(run_id: str, gbs_per_gpu=None, catalog: Catalog | None = None) -> Curve:
    """The run's MFU, HFU and compute share over ``gbs_per_gpu`` (1-D, GB/s achievable per GPU;
    default :func:`bandwidth_grid`), one vectorised evaluation.

    ``catalog`` replaces the run's own (``runs.catalog_of``) when given.
    """
    x = bandwidth_grid() if gbs_per_gpu is None else np.asarray(gbs_per_gpu, dtype=float).ravel()
    if x.size == 0 or not np.all(np.isfinite(x) & (x > 0)):
        raise ScenarioError([("bandwidth", "give one or more finite bandwidths above 0 GB/s per GPU")])
    scn, cat = reference(run_id)
    built = build(scn, catalog or cat)
    p = built.inputs
    rows = np.append(x, np.inf).reshape(-1, 1)  # the last row: unlimited bandwidth
    gpus_per_nic = p.gpus_per_node / p.nics_per_node
    port_bps = rows * GIGA * BITS_PER_BYTE * gpus_per_nic  # r · port/8 / g = x with η = 1
    with np.errstate(invalid="ignore", divide="ignore"):  # ∞ line rate: the unused loss branches
        # x is the achievable bandwidth already: no loss, no congestion factor and no host slot
        # (an unbounded PCIe share) on top of it
        out = compute(p.replace(port_bps=port_bps, efficiency=np.ones((1, 1)), loss_rate=np.zeros((1, 1)),
                                spine_eff=np.ones((1, 1)), pcie_eff=np.full((1, 1), np.inf),
                                loss_model=np.full((1, 1), float(LOSS_NONE))), built.structure)
    m = {k: np.asarray(out.metrics[k])[:, 0] for k in ("mfu", "hfu", "gpu_utilization", "step_time_s",
                                                        "exposed_comm_s")}
    share = float(settings()["knee_share"]["typical"])
    mfu = m["mfu"][:-1]
    return Curve(
        run_id=run_id, fabric=scn.fabrics[0], gbs_per_gpu=x, mfu=mfu, hfu=m["hfu"][:-1],
        compute_share=m["gpu_utilization"][:-1], step_time_s=m["step_time_s"][:-1],
        exposed_share=(m["exposed_comm_s"] / m["step_time_s"])[:-1],
        unbounded_mfu=float(m["mfu"][-1]), unbounded_compute_share=float(m["gpu_utilization"][-1]),
        knee_gbs=_knee(x, mfu, share * float(m["mfu"][-1])), knee_share=share,
    )


def markers(run_id: str, fabrics: list[str] | None = None) -> list[Marker]:
    """The run with each of ``fabrics`` (default: the data file's ``markers`` and the run's own
    fabric), one evaluation."""
    ids = list(fabrics or dict.fromkeys([*settings()["markers"], _run(run_id)["fabric"]]))
    scn, cat = reference(run_id, ids)
    res = evaluate(scn, catalog=cat)
    g = scn.cluster.gpus_per_node
    out = []
    for f in res.fabrics:
        m = f.metrics
        line = m["nic_gbps"] / BITS_PER_BYTE / g
        out.append(Marker(fabric=f.id, gbs_per_gpu=m["scaleout_gbs_per_gpu"], line_gbs_per_gpu=line,
                          mfu=m["mfu"], hfu=m["hfu"], compute_share=m["gpu_utilization"],
                          step_time_s=m["step_time_s"]))
    return out


def calculon_inputs(run_id: str | None = None) -> dict:
    """Calculon's A100 inter-node inputs and its curve, run by this project for one published run.

    ``gbs_per_gpu`` is the achievable bandwidth (line × efficiency) [GB/s]; ``curve`` is a list of
    ``(GB/s per GPU, Calculon's total efficiency)`` pairs for ``run`` (None when ``run_id`` names
    another run or no values are stored); ``unbounded`` its value at unlimited bandwidth; ``knee_gbs``
    the least bandwidth with ``knee_share`` of it [GB/s]; ``source``/``curve_source`` reference keys.
    """
    c = settings()["calculon"]
    line, eff = float(c["a100_gbs_per_gpu"]["typical"]), float(c["a100_efficiency"]["typical"])
    curve = c.get("curve")
    if run_id is not None and run_id != c.get("run"):
        curve = None
    knee = float("nan")
    if curve:
        x, y = np.array(curve, dtype=float).T
        knee = _knee(x, y, float(settings()["knee_share"]["typical"]) * float(c["unbounded"]))
    return {"line_gbs_per_gpu": line, "efficiency": eff, "gbs_per_gpu": line * eff, "run": c.get("run"),
            "curve": curve, "unbounded": c.get("unbounded"), "knee_gbs": knee, "metric": c.get("metric"),
            "source": c["a100_gbs_per_gpu"]["source"], "curve_source": c["curve_source"],
            "searched": c["searched"]}


def markdown() -> str:
    """The reference runs as a Markdown table (docs/validation.md embeds it): MFU at unlimited
    bandwidth, the knee, and each marker fabric's achievable GB/s per GPU and MFU."""
    from costmodel.catalog.formatting import fabric_names

    names = fabric_names("en")
    refs = list(settings()["references"])
    ids = list(dict.fromkeys([*settings()["markers"], *(_run(r)["fabric"] for r in refs)]))
    share = float(settings()["knee_share"]["typical"])
    head = ["run", "MFU, unlimited bandwidth", f"knee ({share:.0%} of it)", *(names.get(f, f) for f in ids)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in refs:
        c = curve(r)
        by = {m.fabric: m for m in markers(r, ids)}
        cells = [f"{by[f].mfu:.1%} at {by[f].gbs_per_gpu:.3g} GB/s" + (" (the run's)" if f == c.fabric else "")
                 for f in ids]
        knee = f"{c.knee_gbs:.3g} GB/s" if np.isfinite(c.knee_gbs) else "beyond the grid"
        run = _run(r)
        what = f"`{r}`: {run['workload']['model_params_b']:g} B on {run['nodes'] * 8:,} {run['gpu']}"
        lines.append(f"| {what} | {c.unbounded_mfu:.1%} | {knee} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


__all__ = ["Curve", "Marker", "bandwidth_grid", "calculon_inputs", "curve", "markdown", "markers", "reference",
           "settings"]
