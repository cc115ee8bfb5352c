"""Write tests/data/golden/outputs.json: the model's outputs for the presets and a seeded random
sample of scenarios around them, which tests/unit/test_golden_outputs.py compares the model with
(to 1e-9 relative) after any refactoring or speed-up.

The file holds each scenario as a document (the saved-file form), so the test needs neither this
script nor its random generator. Re-run it only when the model is *meant* to change, and say why in
the commit: ``PYTHONPATH=. python tests/golden.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import costmodel
from costmodel.analysis.uncertainty import monte_carlo, tornado
from costmodel.analysis.work_risk import work_monte_carlo
from costmodel.errors import ScenarioError
from costmodel.scenario.changes import with_change

OUT = Path(__file__).resolve().parent / "data" / "golden" / "outputs.json"
SAMPLE = 56  # random scenarios around the presets
# (path, draw): the fields the random sample moves, each drawn from a plausible range
FIELDS = (
    ("cluster.nodes", lambda r: int(r.choice([2, 3, 4, 8, 12, 16, 32, 64, 128, 256, 512]))),
    ("facility.pue", lambda r: round(float(r.uniform(1.05, 1.8)), 3)),
    ("facility.electricity_price_per_kwh", lambda r: round(float(r.uniform(0.03, 0.35)), 4)),
    ("workload.model_params_b", lambda r: float(r.choice([1.3, 7, 13, 34, 70, 175, 405]))),
    ("workload.tokens_per_run_b", lambda r: float(r.choice([20, 100, 300, 1000, 2000]))),
    ("workload.compute_efficiency", lambda r: round(float(r.uniform(0.25, 0.6)), 3)),
    ("workload.parallelism", lambda r: str(r.choice(["dp", "fsdp", "pipeline", "best"]))),
    ("workload.schedule", lambda r: str(r.choice(["plan", "always_busy"]))),
    ("operations.maintenance_frac_per_year", lambda r: round(float(r.uniform(0.0, 0.12)), 3)),
    ("finance.horizon_years", lambda r: int(r.choice([3, 4, 5, 6, 7]))),
    ("finance.discount_rate", lambda r: round(float(r.uniform(0.0, 0.15)), 3)),
    ("finance.tax_rate", lambda r: round(float(r.uniform(0.0, 0.3)), 3)),
    ("cluster.oversubscription", lambda r: float(r.choice([1.0, 1.5, 2.0, 3.0]))),
    ("cluster.hot_spare_node_frac", lambda r: round(float(r.uniform(0.0, 0.1)), 3)),
)


def _scenarios() -> list[tuple[str, costmodel.Scenario]]:
    """The presets, then ``SAMPLE`` valid random variants of them (seeded)."""
    rng = np.random.default_rng(20261204)
    presets = [(pid, costmodel.load_preset(pid)) for pid in costmodel.list_presets()]
    out = list(presets)
    while len(out) < len(presets) + SAMPLE:
        name, sc = presets[int(rng.integers(len(presets)))]
        picked = rng.choice(len(FIELDS), size=int(rng.integers(2, 6)), replace=False)
        try:
            for i in sorted(picked):
                path, draw = FIELDS[i]
                sc = with_change(sc, path, draw(rng)).scenario
        except ScenarioError:
            continue  # an invalid combination (e.g. more pipeline stages than nodes): draw again
        out.append((f"{name}~{len(out)}", sc))
    return out


def _frame(df) -> dict:
    """A DataFrame as {column: list} with plain JSON values."""
    return json.loads(df.to_json(orient="split", double_precision=15))


def outputs(scenario: costmodel.Scenario, heavy: bool) -> dict:
    """Everything the pages read for ``scenario``: the result, and for ``heavy`` ones a sweep, a
    Monte Carlo, the equal-work Monte Carlo and the tornado (seeded, few draws)."""
    out = {"result": costmodel.evaluate(scenario).to_dict()}
    if heavy:
        nodes = scenario.cluster.nodes
        out["sweep"] = _frame(costmodel.sweep(scenario, [max(2, nodes // 2), nodes, nodes * 2]))
        out["monte_carlo"] = _frame(monte_carlo(scenario, draws=300, seed=7).summary())
        out["work_monte_carlo"] = _frame(work_monte_carlo(scenario, draws=200, seed=7).summary())
        out["tornado"] = _frame(tornado(scenario))
    return out


def main() -> None:
    cases = []
    for i, (name, sc) in enumerate(_scenarios()):
        cases.append({"name": name, "scenario": sc.model_dump(mode="json"), **outputs(sc, heavy=i % 4 == 0)})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"cases": cases}, indent=1, sort_keys=True, allow_nan=True) + "\n")
    print(f"{len(cases)} cases -> {OUT}")


if __name__ == "__main__":
    main()
