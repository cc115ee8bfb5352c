"""The serving model against published serving measurements: the comparison runs on every stored run
and reports an error for each (whether it matches is reported, not asserted: nothing is fitted)."""

from __future__ import annotations

import math

from costmodel.catalog import serving_data
from costmodel.catalog.loader import load_catalog
from costmodel.serving.published import compare, load_runs


def test_every_published_run_is_compared():
    rows = compare()
    runs = load_runs()
    assert [r["id"] for r in rows] == list(runs)
    for row in rows:
        assert row["measured"] > 0
        assert math.isfinite(row["modelled"]) and row["modelled"] > 0, row
        assert math.isclose(row["error"], row["modelled"] / row["measured"] - 1.0)


def test_published_runs_name_known_parts_fabrics_models_and_sources():
    cat = load_catalog()
    models = serving_data.checked(cat).models
    for rid, run in load_runs().items():
        assert run.gpu in cat.gpus and run.fabric in cat.fabrics and run.model in models, rid
        assert run.measured_tokens_per_s_per_server.source in cat.references, rid
        assert cat.references[run.measured_tokens_per_s_per_server.source].kind == "measurement", rid
