"""Malformed scenarios: every one is refused with one clear message naming the field and its range.

Contract (CLI): a scenario that is not valid JSON, has wrong types, NaN/Inf, negatives, out-of-range
values, unknown fields, absurd sizes or deep nesting exits with code 2, prints nothing on stdout and
exactly one line on stderr that starts with ``error:`` and names the field path and the allowed
range; never a traceback. ``costmodel.load_scenario`` raises ``ScenarioError`` with the same text.

Each file in ``tests/data/malformed/`` has an entry in ``CASES``; large inputs (oversized file,
thousands of nesting levels, a 5,001-digit number) are generated into ``tmp_path`` by ``GENERATED``.
Cases with ``bug`` set are inputs the contract says must be refused but the code gets wrong; they
are strict xfails, so fixing the code turns them into failures until ``bug`` is removed.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

import costmodel
from costmodel.scenario.validation import MAX_DEPTH, MAX_SCENARIO_BYTES

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "malformed"
EXIT_BAD_INPUT = 2
CLI_TIMEOUT_S = 60


@dataclass(frozen=True)
class Case:
    """What the message for one malformed input must contain.

    path: the field path the message must name (as ``path:``), or None for a document-level problem.
    fragments: further texts that must all appear (the allowed range, or what is wrong).
    bug: why the code currently fails the contract (strict xfail), or None.
    bug_in: which checks the bug breaks: "load" (load_scenario) and/or "cli".
    """

    path: str | None
    fragments: tuple[str, ...]
    bug: str | None = None
    bug_in: tuple[str, ...] = ("load", "cli")


NODES_RANGE = "≥ 1 and ≤ 100,000"
PUE_RANGE = "≥ 1 and ≤ 3"

CASES: dict[str, Case] = {
    # out of range, negative, absurd
    "nodes_zero.json": Case("cluster.nodes", (NODES_RANGE,)),
    "nodes_negative.json": Case("cluster.nodes", (NODES_RANGE,)),
    "absurd_nodes.json": Case("cluster.nodes", (NODES_RANGE, "1000000000000")),
    "pue_below_one.json": Case("facility.pue", (PUE_RANGE,)),
    "negative_price.json": Case("cluster.server_price", ("≥ 0",)),
    "horizon_too_long.json": Case("finance.horizon_years", ("≥ 1 and ≤ 15",)),
    "discount_rate_above_max.json": Case("finance.discount_rate", ("≥ 0 and ≤ 0.5",)),
    "residual_value_above_max.json": Case("finance.residual_value_frac", ("≥ 0 and ≤ 0.9",)),
    "compute_efficiency_zero.json": Case("workload.compute_efficiency", ("≥ 0.01 and ≤ 1",)),
    "model_params_zero.json": Case("workload.model_params_b", ("> 0",)),
    "gpus_per_node_above_max.json": Case("cluster.gpus_per_node", ("≥ 1 and ≤ 16",)),
    "instalments_longer_than_horizon.json": Case("finance.instalment_months", ("at most 12 × horizon_years",)),
    "name_too_long.json": Case("name", ("length ≤ 200",)),
    "name_empty.json": Case("name", ("length ≥ 1",)),
    "two_fields_invalid.json": Case("cluster.nodes", (NODES_RANGE, "facility.pue:", PUE_RANGE)),
    # NaN / infinity
    "nan_electricity.json": Case("facility.electricity_price_per_kwh", ("finite", "≥ 0 and ≤ 10")),
    "infinity_token.json": Case("operations.restart_minutes", ("finite", "≥ 0 and ≤ 1,440")),
    "negative_infinity_token.json": Case("operations.restart_minutes", ("finite", "≥ 0 and ≤ 1,440")),
    "nan_string.json": Case("facility.pue", ("valid number", PUE_RANGE)),
    "huge_number.json": Case("facility.electricity_price_per_kwh", ("finite", "≥ 0 and ≤ 10")),
    "huge_number_int_field.json": Case("cluster.nodes", ("valid integer", NODES_RANGE)),
    "yaml_nan.yaml": Case("facility.pue", ("finite", PUE_RANGE)),
    # wrong types that are refused
    "nodes_float.json": Case("cluster.nodes", ("integer", NODES_RANGE)),
    "nodes_string.json": Case("cluster.nodes", ("integer", NODES_RANGE)),
    "nodes_null.json": Case("cluster.nodes", ("integer", NODES_RANGE)),
    "name_not_string.json": Case("name", ("valid string",)),
    "name_lone_surrogate.json": Case("name", ("surrogate",)),
    "yaml_date_for_name.yaml": Case("name", ("valid string",)),
    "section_not_object.json": Case("cluster", ("dictionary",)),
    "fabrics_not_list.json": Case("fabrics", ("valid list",)),
    "fabric_id_not_string.json": Case("fabrics[1]", ("valid string",)),
    "gpu_id_bad_pattern.json": Case("cluster.gpu", ("pattern",)),
    "parallelism_unknown.json": Case("workload.parallelism", ("'dp'", "'fsdp'", "'pipeline'")),
    # wrong types that lax parsing would coerce (strict mode refuses them)
    "bool_for_int.json": Case("cluster.nodes", ("valid integer", NODES_RANGE)),
    "bool_for_float.json": Case("facility.pue", ("valid number", PUE_RANGE)),
    "numeric_string_for_int.json": Case("cluster.nodes", ("valid integer", NODES_RANGE)),
    "numeric_string_for_float.json": Case("facility.pue", ("valid number", PUE_RANGE)),
    "number_for_bool.json": Case("workload.full_recompute", ("valid boolean", "true or false")),
    "string_for_bool.json": Case("workload.full_recompute", ("valid boolean", "true or false")),
    "duplicate_key.json": Case("nodes", ("given twice",)),
    # unknown fields and ids
    "unknown_top_field.json": Case("nodes", ("unknown field", "cluster")),
    "unknown_nested_field.json": Case("cluster.gpu_count", ("unknown field", "gpus_per_node")),
    "unknown_field_with_newline.json": Case(None, ("cluster.nodes fake line:", "unknown field")),
    "unknown_gpu.json": Case("cluster.gpu", ("'h900'", "allowed:", "a100-80")),
    "unknown_fabric.json": Case("fabrics", ("'quantum-link'", "allowed:", "tcp-100")),
    "unknown_price_book.json": Case("price_book", ("'black-market'", "allowed:", "public")),
    # fabric list rules
    "fabrics_empty.json": Case("fabrics", ("length ≥ 1",)),
    "fabrics_too_many.json": Case("fabrics", ("length ≤ 12",)),
    "fabrics_duplicate.json": Case("fabrics", ("once",)),
    "baseline_not_in_fabrics.json": Case("baseline", ("'ib-ndr-400'", "one of fabrics")),
    # document level: syntax, encoding, shape, nesting
    "top_level_array.json": Case(None, ("must be an object", "list")),
    "top_level_null.json": Case(None, ("must be an object",)),
    "not_json.json": Case(None, ("not valid JSON",)),
    "truncated.json": Case(None, ("not valid JSON",)),
    "empty.json": Case(None, ("not valid JSON",)),
    "trailing_comma.json": Case(None, ("not valid JSON",)),
    "single_quotes.json": Case(None, ("not valid JSON",)),
    "non_utf8.json": Case(None, ("UTF-8",)),
    "utf16.json": Case(None, ("UTF-8",)),
    "nesting_9_levels.json": Case(None, ("nested", f"{MAX_DEPTH} levels")),
    "yaml_alias.yaml": Case(None, ("aliases",)),
    "yaml_billion_laughs.yaml": Case(None, ("aliases",)),
    "yaml_python_tag.yaml": Case(None, ("not valid YAML",)),
}


def _oversized(path: Path) -> None:
    # valid JSON apart from its size, so only the size limit can refuse it
    path.write_text('{"name": "padded"}' + " " * (MAX_SCENARIO_BYTES + 1), encoding="utf-8")


def _deep_arrays(path: Path) -> None:
    path.write_text("[" * 5000 + "]" * 5000, encoding="utf-8")


def _deep_objects(path: Path) -> None:
    path.write_text('{"a": ' * 5000 + "1" + "}" * 5000, encoding="utf-8")


def _many_digits(path: Path) -> None:
    path.write_text('{"cluster": {"nodes": 1' + "0" * 5000 + "}}", encoding="utf-8")


GENERATED: dict[str, tuple[Callable[[Path], None], Case]] = {
    "oversized.json": (_oversized, Case(None, ("bytes", f"{MAX_SCENARIO_BYTES:,}"))),
    "deep_nesting_arrays.json": (_deep_arrays, Case(None, ("nested", f"{MAX_DEPTH} levels"))),
    "deep_nesting_objects.json": (_deep_objects, Case(None, ("nested", f"{MAX_DEPTH} levels"))),
    "nodes_5001_digits.json": (_many_digits, Case("cluster.nodes", ("valid integer", NODES_RANGE))),
}

ALL_NAMES = sorted(CASES) + sorted(GENERATED)


def _case(name: str) -> Case:
    return CASES[name] if name in CASES else GENERATED[name][1]


def _params(check: str) -> list:
    out = []
    for name in ALL_NAMES:
        case = _case(name)
        marks = []
        if case.bug and check in case.bug_in:
            marks.append(pytest.mark.xfail(strict=True, reason=f"BUG: {case.bug}"))
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.fixture(scope="module")
def generated_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("malformed_generated")
    for name, (make, _) in GENERATED.items():
        make(d / name)
    return d


def _file(name: str, generated_dir: Path) -> Path:
    return DATA / name if name in CASES else generated_dir / name


def _assert_names_field(message: str, case: Case) -> None:
    if case.path is not None:
        assert f"{case.path}:" in message, f"message does not name {case.path!r}: {message!r}"
    for fragment in case.fragments:
        assert fragment in message, f"message lacks {fragment!r}: {message!r}"


def _run_cli(path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "costmodel", "compare", str(path), "--format", "json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        encoding="utf-8",
        errors="replace",
        timeout=CLI_TIMEOUT_S,
        check=False,
    )


@pytest.fixture(scope="module")
def cli_results(generated_dir) -> dict[str, subprocess.CompletedProcess]:
    """Run the CLI on every case once, in parallel (each run is a ~1 s interpreter start-up)."""
    workers = max(2, min(8, os.cpu_count() or 2))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        runs = {name: pool.submit(_run_cli, _file(name, generated_dir)) for name in ALL_NAMES}
        return {name: fut.result() for name, fut in runs.items()}


@pytest.mark.parametrize("name", _params("load"))
def test_load_scenario_refuses(name, generated_dir):
    with pytest.raises(costmodel.ScenarioError) as info:
        costmodel.load_scenario(_file(name, generated_dir))
    _assert_names_field(str(info.value), _case(name))


@pytest.mark.parametrize("name", _params("cli"))
def test_cli_refuses_with_one_line(name, cli_results):
    proc = cli_results[name]
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == EXIT_BAD_INPUT, (proc.returncode, proc.stderr[-2000:])
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, f"expected one stderr line, got {len(lines)}: {proc.stderr!r}"
    assert lines[0].startswith("error: "), lines[0]
    _assert_names_field(lines[0], _case(name))


@pytest.mark.parametrize("target", ["directory", "/dev/zero"])
def test_cli_refuses_what_is_not_a_regular_file(tmp_path, target):
    """A directory, or an endless device that claims size 0, is refused without reading it all."""
    path = tmp_path if target == "directory" else Path(target)
    if not path.exists():
        pytest.skip(f"{target} does not exist on this system")
    proc = _run_cli(path)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == EXIT_BAD_INPUT
    assert proc.stderr.startswith("error: ") and len(proc.stderr.splitlines()) == 1
    assert "not a regular file" in proc.stderr


def test_missing_file_is_refused(tmp_path):
    missing = tmp_path / "no_such_scenario.json"
    with pytest.raises(costmodel.ScenarioError, match=re.escape("no_such_scenario.json")):
        costmodel.load_scenario(missing)


def test_valid_scenario_passes_cli(tmp_path):
    """Control: the same CLI call accepts a valid scenario, so the refusals above are not vacuous."""
    preset = subprocess.run(
        [sys.executable, "-m", "costmodel", "preset", "seed-case2-24xA100"],
        cwd=ROOT,
        capture_output=True,
        encoding="utf-8",
        timeout=CLI_TIMEOUT_S,
        check=True,
    )
    scenario = tmp_path / "valid.json"
    scenario.write_text(preset.stdout, encoding="utf-8")
    assert isinstance(costmodel.load_scenario(scenario), costmodel.Scenario)
    proc = _run_cli(scenario)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    result = json.loads(proc.stdout)
    assert isinstance(result, dict) and result


def test_every_malformed_file_is_in_the_manifest():
    on_disk = {p.name for p in DATA.iterdir() if p.is_file()}
    assert on_disk - set(CASES) == set(), "files without a manifest entry"
    assert set(CASES) - on_disk == set(), "manifest entries without a file"
    assert not set(CASES) & set(GENERATED), "a name is both committed and generated"
    assert len(CASES) + len(GENERATED) >= 24
