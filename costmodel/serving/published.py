"""The serving model against published serving measurements (``data/serving_runs.yaml``).

Each run is modelled as it was deployed: its model, part, fabric and precision, disaggregated, one
instance of the run's servers, at its SLA. Prefill is compared in input tokens/s per server
(``L_p / t_prefill`` over the instance's servers), decode in output tokens/s per server at the
largest batch that meets the run's TPOT. The error ``model / measured − 1`` is reported as it is:
nothing of the model is fitted to these figures.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from costmodel.catalog.loader import DATA_DIR, Catalog, load_catalog
from costmodel.catalog.quantity import Quantity
from costmodel.errors import CatalogError
from costmodel.scenario.schema import Scenario
from costmodel.serving.from_scenario import serving_inputs
from costmodel.serving.sizing import serve


class Run(BaseModel):
    """One published measurement (see serving_runs.yaml for the fields)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    name_zh: str
    model: str
    gpu: str
    fabric: str
    precision: Literal["bf16", "fp8", "fp4"]
    role: Literal["prefill", "decode"]
    instance_servers: Quantity
    prompt: Quantity
    output: Quantity
    ttft_s: Quantity
    tpot_s: Quantity
    measured_tokens_per_s_per_server: Quantity


@functools.lru_cache(maxsize=4)
def load_runs(data_dir: Path = DATA_DIR) -> dict[str, Run]:
    """The runs of serving_runs.yaml, validated (cached; read on first use)."""
    try:
        with (data_dir / "serving_runs.yaml").open(encoding="utf-8") as fh:
            raw = yaml.load(fh, Loader=yaml.CSafeLoader)
        return {k: Run.model_validate(v) for k, v in raw["runs"].items()}
    except (OSError, yaml.YAMLError, ValidationError, KeyError, TypeError) as exc:
        raise CatalogError(f"serving_runs.yaml is invalid: {exc}") from exc


def _scenario(run: Run) -> Scenario:
    base = Scenario()
    data = base.model_dump()
    data["cluster"].update(gpu=run.gpu, nodes=max(int(run.instance_servers.typical), base.cluster.nodes))
    data.update(fabrics=[run.fabric], baseline=run.fabric)
    return Scenario.model_validate(data)


def modelled(run: Run, catalog: Catalog | None = None) -> dict[str, float]:
    """The model's figure for ``run`` [tokens/s per server] and its TTFT and TPOT there [s]."""
    v = {k: getattr(run, k).typical for k in ("prompt", "output", "ttft_s", "tpot_s")}
    x = serving_inputs(_scenario(run), run.model, precision=run.precision, peak_rps=1.0, avg_rps=1.0,
                       disaggregated=1.0, instance_servers=run.instance_servers.typical, catalog=catalog, **v)
    r = serve(x)
    per_server = (r["output_tokens_per_s_per_gpu"] * x.gpus_per_server if run.role == "decode"
                  else x.prompt / r["prefill_s"] / r["instance_servers"])
    ok = bool(np.ravel(r["reachable"])[0]) or run.role == "prefill"
    return {"tokens_per_s_per_server": float(np.ravel(per_server)[0]) if ok else float("nan"),
            "ttft_s": float(np.ravel(r["ttft_s"])[0]), "tpot_s": float(np.ravel(r["tpot_s"])[0]),
            "batch": float(np.ravel(r["batch"])[0])}


def compare(catalog: Catalog | None = None) -> list[dict]:
    """Every run: its id, role, measured and modelled tokens/s per server and the error
    ``modelled / measured − 1`` (NaN where the model finds the run's SLA unreachable)."""
    cat = catalog or load_catalog()
    rows = []
    for rid, run in load_runs().items():
        for q in (run.instance_servers, run.prompt, run.output, run.ttft_s, run.tpot_s,
                  run.measured_tokens_per_s_per_server):
            if q.source not in cat.references:
                raise CatalogError(f"serving_runs.{rid}: unknown source key {q.source!r}")
        m = modelled(run, cat)
        measured = run.measured_tokens_per_s_per_server.typical
        rows.append({"id": rid, "name": run.name, "name_zh": run.name_zh, "role": run.role, "fabric": run.fabric,
                     "measured": measured,
                     "modelled": m["tokens_per_s_per_server"], "error": m["tokens_per_s_per_server"] / measured - 1.0,
                     "source": run.measured_tokens_per_s_per_server.source})
    return rows


__all__ = ["Run", "compare", "load_runs", "modelled"]
