"""The format-1 fixtures (tests/data/formats/v1, made by commit 45aa0b2's code) and their checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import costmodel

V1 = Path(__file__).resolve().parent / "data" / "formats" / "v1"
MANIFEST = json.loads((V1 / "manifest.json").read_text(encoding="utf-8"))


def figures(scenario: costmodel.Scenario) -> dict:
    """What the manifest records: currency, horizon [years], per fabric TCO [currency] and days per run."""
    r = costmodel.evaluate(scenario)
    return {"currency": r.currency, "horizon_years": r.horizon_years,
            "fabrics": {f.id: {"tco_total": f.tco_total, "run_days": f.metrics["run_days"]} for f in r.fabrics}}


def assert_same_results(got: dict, made: dict) -> None:
    """Same currency, horizon and fabrics; each figure equal to 1e-9 (the model has not changed)."""
    assert (got["currency"], got["horizon_years"]) == (made["currency"], made["horizon_years"])
    assert sorted(got["fabrics"]) == sorted(made["fabrics"])
    for fid, figs in made["fabrics"].items():
        for metric, value in figs.items():
            assert got["fabrics"][fid][metric] == pytest.approx(value, rel=1e-9), (fid, metric)


def v1_file(name: str) -> bytes:
    """The bytes of an exported format-1 file by its manifest name."""
    return (V1 / MANIFEST["exports"][name]["file"]).read_bytes()


def restore_v1_store(path: Path) -> Path:
    """The format-1 store (kept as SQLite's text dump, ``store.sql``) restored into a new SQLite file."""
    import sqlite3

    con = sqlite3.connect(path)
    try:
        con.executescript((V1 / "store.sql").read_text(encoding="utf-8"))
    finally:
        con.close()
    return path
