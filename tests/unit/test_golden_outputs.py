"""The model's outputs stay what they were: every case of tests/data/golden/outputs.json (the presets
and a seeded random sample around them; results, sweeps, Monte Carlo, equal-work Monte Carlo and
tornado) is recomputed from its saved scenario document and compared number by number, to 1e-9
relative. Regenerate the file (tests/golden.py) only for a change meant to move the numbers."""

from __future__ import annotations

import json
import math

import pytest
from golden import OUT, outputs

import costmodel

CASES = json.loads(OUT.read_text())["cases"]
REL = 1e-9


def _differences(want, got, where: str = "") -> list[str]:
    """Where ``got`` differs from ``want`` (numbers beyond REL relative, else any difference)."""
    if isinstance(want, dict) and isinstance(got, dict):
        if want.keys() != got.keys():
            return [f"{where}: keys {sorted(set(want) ^ set(got))} differ"]
        return [d for k in want for d in _differences(want[k], got[k], f"{where}.{k}")]
    if isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            return [f"{where}: length {len(want)} → {len(got)}"]
        return [d for i, (a, b) in enumerate(zip(want, got, strict=True)) for d in _differences(a, b, f"{where}[{i}]")]
    numbers = (int, float)
    if isinstance(want, numbers) and isinstance(got, numbers) and not isinstance(want, bool):
        if math.isnan(want) and math.isnan(got):
            return []
        return [] if math.isclose(want, got, rel_tol=REL, abs_tol=1e-9) else [f"{where}: {want!r} → {got!r}"]
    return [] if want == got else [f"{where}: {want!r} → {got!r}"]


def _jsonable(out: dict) -> dict:
    """``out`` through JSON, as the golden file stores it (tuples → lists, NaN kept)."""
    return json.loads(json.dumps(out, allow_nan=True))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_outputs_match_the_golden_file(case):
    scenario = costmodel.scenario_from_dict(case["scenario"])
    got = _jsonable(outputs(scenario, heavy="sweep" in case))
    want = {k: v for k, v in case.items() if k not in ("name", "scenario")}
    problems = _differences(want, got)
    assert not problems, f"{len(problems)} differences, first: {problems[:5]}"


def test_the_sample_covers_every_preset_layout_and_schedule():
    """The random sample is wide enough to mean something: every preset, every layout, both schedules."""
    kinds = {(c["scenario"]["workload"]["parallelism"], c["scenario"]["workload"]["schedule"]) for c in CASES}
    presets = {c["name"].split("~")[0] for c in CASES}
    assert presets == set(costmodel.list_presets())
    assert {p for p, _ in kinds} == {"dp", "fsdp", "pipeline", "best"}
    assert {s for _, s in kinds} == {"plan", "always_busy"}
    assert sum("sweep" in c for c in CASES) >= 10
