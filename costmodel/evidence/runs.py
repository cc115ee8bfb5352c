"""Published training runs beside the model's step time (``data/training_runs.yaml``).

Each run becomes a one-fabric :class:`~costmodel.scenario.schema.Scenario` and goes through the same
:func:`costmodel.api.evaluate` as every page; the model's figure is read from its metrics. Nothing is
fitted to the runs: the kernel efficiency comes from the layout's matrix shapes and the GPU's
published kernel measurements (:mod:`costmodel.physics.gemm_efficiency`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import yaml

from costmodel.api import evaluate
from costmodel.catalog.loader import Catalog, load_catalog
from costmodel.scenario.schema import Scenario

SECONDS_PER_DAY = 86400.0


@dataclass(frozen=True)
class RunCheck:
    """One published run: the published figure, the model's, and whether they agree."""

    id: str
    text: str
    text_zh: str
    source: str
    metric: str
    published: float
    model: float
    tolerance: float
    role: str
    note: str
    mfu: float
    hfu: float
    step_time_s: float
    exposed_share: float  # network time on the critical path / step

    @property
    def error(self) -> float:
        """Model minus published: relative for times, absolute for MFU."""
        if self.metric == "mfu":
            return self.model - self.published
        return self.model / self.published - 1.0

    @property
    def relative_error(self) -> float:
        """Model ÷ published − 1, whatever the metric (MFU included)."""
        return self.model / self.published - 1.0

    @property
    def within(self) -> bool:
        return abs(self.error) <= self.tolerance + 1e-12


@lru_cache(maxsize=1)
def load_runs() -> tuple[dict, ...]:
    """The published runs, as stored."""
    text = resources.files("costmodel").joinpath("data/training_runs.yaml").read_text(encoding="utf-8")
    return tuple(yaml.load(text, Loader=yaml.CSafeLoader)["runs"])


def gpus_per_node(run: dict) -> int:
    """GPUs (and NICs: one per GPU in every run) per server: 8, or a rack-scale part's compute tray."""
    return int(run.get("gpus_per_node", 8))


def scenario_of(run: dict, compute_efficiency: float | None = None) -> Scenario:
    """The one-fabric scenario of a published run."""
    w = dict(run["workload"])
    seqs = w.pop("global_batch_seqs")
    w["global_batch_tokens_m"] = seqs * w["seq_len"] / 1e6
    w["tokens_per_run_b"] = run.get("tokens_b", 1.0)
    if compute_efficiency is not None:
        w["compute_efficiency"] = compute_efficiency
    overrides = {"gpus": {run["gpu"]: run["gpu_overrides"]}} if run.get("gpu_overrides") else {}
    return Scenario.model_validate({
        "overrides": overrides,
        "name": run["id"],
        "cluster": {"nodes": run["nodes"], "gpu": run["gpu"], "gpus_per_node": gpus_per_node(run),
                    "nics_per_node": gpus_per_node(run)},
        "workload": w,
        "fabrics": [run["fabric"]],
        "baseline": run["fabric"],
    })


def catalog_of(run: dict) -> Catalog:
    """The packaged catalog, with the model constants a run names set to their catalog ``low``
    (e.g. DeepSpeed's 2021 ZeRO-3 gathers: ``fsdp_collective_efficiency: low``)."""
    cat = load_catalog()
    names = run.get("constants") or {}
    if not names:
        return cat
    model = dict(cat.model)
    for name, which in names.items():
        q = model[name]
        value = {"low": q.lo, "high": q.hi}[which]
        model[name] = q.model_copy(update={"typical": value, "low": None, "high": None})
    return cat.model_copy(update={"model": model})


def _metrics(run: dict, efficiency: float | None) -> dict:
    return evaluate(scenario_of(run, efficiency), catalog=catalog_of(run)).fabrics[0].metrics


def _figure(run: dict, m: dict) -> float:
    metric = run["published"]["metric"]
    if metric == "step_time_s":
        return m["step_time_s"]
    if metric == "mfu":
        return m["mfu"]
    seqs = run["workload"]["global_batch_seqs"] * run["workload"]["seq_len"]
    if metric == "tokens_per_gpu_s":
        return seqs / (m["step_time_s"] * run["nodes"] * gpus_per_node(run))
    tokens = run["tokens_b"] * 1e9
    batch = run["workload"]["global_batch_seqs"] * run["workload"]["seq_len"]
    return tokens / batch * m["step_time_s"] / SECONDS_PER_DAY


@lru_cache(maxsize=1)
def check_runs() -> tuple[tuple[RunCheck, ...], dict[str, float]]:
    """Every published run against the model, and the calibrated kernel efficiency per GPU (none: no
    run calibrates the model; the dict stays for its readers)."""
    runs = load_runs()
    efficiency: dict[str, float] = {}
    out = []
    for r in runs:
        m = _metrics(r, None)
        pub = r["published"]
        out.append(RunCheck(
            id=r["id"], text=r["text"], text_zh=r.get("text_zh", r["text"]), source=r["source"], metric=pub["metric"],
            published=float(pub["value"]), model=float(_figure(r, m)), tolerance=float(pub["tolerance"]),
            role=r.get("role", "check"), note=r.get("note", ""), mfu=m["mfu"], hfu=m["hfu"],
            step_time_s=m["step_time_s"], exposed_share=m["exposed_comm_s"] / m["step_time_s"],
        ))
    return tuple(out), efficiency


def _fmt(metric: str, x: float) -> str:
    if metric == "mfu":
        return f"{x:.1%}"
    if metric == "tokens_per_gpu_s":
        return f"{x:,.0f} tok/s/GPU"
    return f"{x:.1f} d" if metric == "days" else f"{x:.2f} s"


def markdown() -> str:
    """The runs as a Markdown table (docs/validation.md embeds it)."""
    checks, _ = check_runs()
    lines = ["| run | source | published | model | error | tolerance | MFU / HFU | network exposed | verdict |",
             "|---|---|---|---|---|---|---|---|---|"]
    for c in checks:
        err = f"{c.error * 100:+.1f} pt" if c.metric == "mfu" else f"{c.error:+.1%}"
        tol = f"± {c.tolerance * 100:.0f} pt" if c.metric == "mfu" else f"± {c.tolerance:.0%}"
        verdict = {"calibration": "calibration", "source": "source of a constant"}.get(
            c.role, "within" if c.within else "**miss**")
        lines.append(f"| {c.text} | `{c.source}` | {_fmt(c.metric, c.published)} | {_fmt(c.metric, c.model)} | "
                     f"{err} | {tol} | {c.mfu:.1%} / {c.hfu:.1%} | {c.exposed_share:.1%} | {verdict} |")
    mean, misses, n = summary(checks)
    lines.append("")
    lines.append(f"{n} runs checked (the row that sets a constant excluded): mean |model ÷ published − 1| "
                 f"{mean:.1%}; {len(misses)} outside their tolerance{': ' if misses else ''}{', '.join(misses)}. "
                 "No run sets a kernel efficiency: every row takes it from its matrix shapes.")
    return "\n".join(lines)


def summary(checks: tuple[RunCheck, ...]) -> tuple[float, list[str], int]:
    """Mean |relative error| of the check rows, the ids outside their tolerance, and how many rows."""
    rows = [c for c in checks if c.role == "check"]
    mean = sum(abs(c.relative_error) for c in rows) / len(rows)
    return mean, [c.id for c in rows if not c.within], len(rows)
