"""The public entry points: evaluate, sweep, load_scenario (Monte Carlo in uncertainty.py)."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np
import pandas as pd

from costmodel.catalog.loader import Catalog, load_catalog
from costmodel.errors import ScenarioError, problem, problems_error
from costmodel.pipeline.equal_work import always_busy, node_grid, size_for_work
from costmodel.pipeline.inputs import build
from costmodel.pipeline.recommend import recommend, seed_rule
from costmodel.pipeline.results import Result, to_frame, to_result
from costmodel.pipeline.tco import Modes, compute
from costmodel.scenario import formats, price_books
from costmodel.scenario.schema import Scenario
from costmodel.scenario.validation import (
    MAX_SCENARIO_BYTES,
    clean_text,
    field_bounds,
    parse_document,
    validate_scenario,
)

MAX_SWEEP_POINTS = 5_000_000


def _names_known(scenario: Scenario, cat: Catalog) -> bool:
    """Whether every GPU, fabric and price-book id ``scenario`` names is one of ``cat``'s."""
    ov, book = scenario.overrides, scenario.custom_price_book
    gpus = {scenario.cluster.gpu, *ov.gpus, *ov.gpu_prices, *(book.gpus if book else ())}
    fabrics = {*scenario.fabrics, *ov.fabrics, *ov.fabric_prices, *(book.fabrics if book else ())}
    return gpus <= cat.gpus.keys() and fabrics <= cat.fabrics.keys() and scenario.price_book in cat.price_books


def _built(scenario: Scenario, catalog: Catalog | None):
    """The model's arrays of ``scenario`` from ``catalog`` (None: the packaged one). A scenario validated
    against another catalog is refused (ScenarioError naming the field), not a KeyError."""
    if not _names_known(scenario, catalog or load_catalog()):
        validate_scenario(scenario.model_dump(), catalog)
    return build(scenario, catalog)


def evaluate(scenario: Scenario, catalog: Catalog | None = None) -> Result:
    """Evaluate one scenario for all its fabrics, with the figures of ``catalog`` (default: the packaged
    catalog; a scenario naming another catalog's ids is validated against it, see
    :func:`scenario_from_dict`).

    >>> r = evaluate(Scenario())
    >>> r.currency, r.baseline, len(r.fabrics)
    ('USD', 'tcp-100', 4)
    """
    built = _built(scenario, catalog)
    st = built.structure
    # one batch: the scenario, the same cluster always busy, and the equal-work node grid (plan, cluster scope)
    grid = node_grid(float(scenario.cluster.nodes))
    n, k = float(scenario.cluster.nodes), len(grid)
    modes = Modes(always_busy=np.array([st.schedule == "always_busy", True] + [False] * k)[:, None],
                  fabric_scope=np.array([st.scope == "fabric"] * 2 + [False] * k)[:, None])
    batch = compute(built.inputs.replace(nodes=np.concatenate([[n, n], grid])[:, None]), st, modes)
    out = batch.rows(slice(0, 1))
    work = size_for_work(built.inputs, st, scenario.workload.target_run_days,
                         coarse=batch.rows(slice(2, None), lines=False))
    ctx = scenario.context
    family, reasons = seed_rule(scenario.cluster.nodes, scenario.workload.model_params_b,
                                ctx.budget_tight, ctx.existing_ethernet, ctx.ops_team, catalog)
    rec = recommend(
        list(scenario.fabrics), built.structure.families, out.tco[0],
        out.metrics["cost_per_run"][0], out.metrics["fits_plan"][0].astype(bool),
        {k: v[0] for k, v in out.breakdown.items()},
        {k: v[0] for k, v in out.metrics.items()}, scenario.workload.schedule, family, reasons,
        work_cost=work.cost, work_breakdown=work.breakdown,
    )
    result = to_result(out, rec, scenario.name, price_books.label(scenario), scenario.cluster.nodes, catalog,
                       equal_work=work, busy=always_busy(built.inputs, st, batch.rows(slice(1, 2), lines=False)))
    cat = catalog or load_catalog()
    return dataclasses.replace(result, gpu=cat.gpus[scenario.cluster.gpu].name,
                               gpus_per_node=int(built.inputs.gpus_per_node.ravel()[0]),
                               model_params_b=float(scenario.workload.model_params_b),
                               scaleup_domain_gpus=int(built.inputs.scaleup_gpus.ravel()[0]))


def sweep(scenario: Scenario, nodes, catalog: Catalog | None = None) -> pd.DataFrame:
    """TCO and metrics for every node count × fabric, one row each, in one vectorised pass.

    ``nodes`` is a 1-D array of node counts (each within the scenario's bounds). The columns
    are those of :func:`costmodel.pipeline.results.to_frame` plus ``nodes``.

    >>> df = sweep(Scenario(), nodes=[2, 4, 8])
    >>> len(df), list(df.columns[:3])
    (12, ['nodes', 'fabric', 'family'])
    """
    arr = np.asarray(nodes, dtype=float).ravel()
    lo, hi = field_bounds("cluster.nodes")
    if arr.size == 0 or arr.size > MAX_SWEEP_POINTS:
        raise ScenarioError([("nodes", f"give 1 to {MAX_SWEEP_POINTS:,} node counts")])
    bad = ~np.isfinite(arr) | (arr < lo) | (arr > hi) | (arr != np.round(arr))
    if bad.any():
        raise ScenarioError([("nodes", f"node counts must be whole numbers from {lo} to {hi} (got {arr[bad][0]!r})")])
    built = _built(scenario, catalog)
    # the model is elementwise in the node count: each distinct count is computed once
    distinct, rows = np.unique(arr, return_inverse=True)
    if distinct.size == arr.size:  # no repeats: the table's own order, no gather
        distinct, rows = arr, None
    inputs = built.inputs.replace(nodes=distinct.reshape(-1, 1))
    out = compute(inputs, built.structure, lines=False)
    return to_frame(out, {"nodes": arr.astype(int)}, rows=None if rows is None else rows.ravel())


def load_scenario(path: str | Path, catalog: Catalog | None = None) -> Scenario:
    """Read and validate a scenario file (JSON, or YAML by extension ``.yaml``/``.yml``).

    Raises :class:`ScenarioError` naming the field and its allowed range on any problem:
    unreadable or oversized file, bad syntax, NaN/Inf, wrong types, out-of-range values,
    unknown fields, excessive nesting; ids are checked against ``catalog`` (default: the packaged one).
    """
    p = Path(path)
    name = clean_text(p.name, 80)
    try:
        if not p.is_file():
            raise problems_error(problem("", f"{name} is not a regular file", "file_not_regular", file=name))
        with p.open("rb") as fh:
            raw = fh.read(MAX_SCENARIO_BYTES + 1)  # never more, whatever the file claims
    except OSError as exc:
        raise problems_error(problem("", f"cannot read {name}: {exc.strerror}", "file_cannot_read", file=name,
                                     reason=exc.strerror or "")) from None
    if len(raw) > MAX_SCENARIO_BYTES:
        raise ScenarioError([("", f"{name} is larger than {MAX_SCENARIO_BYTES:,} bytes, the most a "
                                  f"scenario file may be")])
    fmt = "yaml" if p.suffix.lower() in (".yaml", ".yml") else "json"
    return validate_scenario(formats.upgrade(parse_document(raw, fmt))[0], catalog)  # any format, migrated


def scenario_from_dict(data: dict, catalog: Catalog | None = None) -> Scenario:
    """Validate an already-parsed mapping into a :class:`Scenario` whose ids are those of ``catalog``
    (default: the packaged one); ScenarioError on failure."""
    return validate_scenario(data, catalog)


def summarize(scenario: Scenario) -> dict:
    """Compact results of a scenario for the store: per fabric the TCO over the horizon [currency]
    and days per training run [days], with the model's data fingerprint and the date [UTC]."""
    r = evaluate(scenario)
    return {"currency": r.currency, "horizon_years": r.horizon_years,
            "model": {"data": formats.model_fingerprint(), "format": formats.CURRENT,
                      "computed_on": time.strftime("%Y-%m-%d", time.gmtime())},
            "fabrics": {f.id: {"tco_total": f.tco_total, "run_days": f.metrics.get("run_days")}
                        for f in r.fabrics}}

__all__ = ["evaluate", "load_scenario", "scenario_from_dict", "summarize", "sweep"]
