"""Hypothesis strategies for scenarios, kept in one place (numpy-financial's habit)."""

from __future__ import annotations

from hypothesis import strategies as st

from costmodel.catalog.loader import load_catalog
from costmodel.scenario.schema import Scenario

CAT = load_catalog()
GPUS = sorted(CAT.gpus)
FABRICS = sorted(CAT.fabrics)


@st.composite
def scenarios(draw, max_nodes: int = 2048) -> Scenario:
    """Valid scenarios over the whole catalog and the main switches of the schema."""
    gpu = draw(st.sampled_from(GPUS))
    usable = [f for f in FABRICS if CAT.gpus[gpu].carries(f)]  # the fabrics its server can carry
    fabrics = draw(st.lists(st.sampled_from(usable), min_size=1, max_size=5, unique=True))
    baseline = draw(st.sampled_from(fabrics))
    parallelism = draw(st.sampled_from(["dp", "fsdp", "pipeline"]))
    horizon = draw(st.integers(1, 10))
    payment = draw(st.sampled_from(["upfront", "instalments"]))
    busy = draw(st.floats(0.3, 1.0))
    nodes = draw(st.integers(1, max_nodes))
    data = {
        "scope": draw(st.sampled_from(["cluster", "fabric"])),
        "cluster": {
            "nodes": nodes,
            "gpu": gpu,
            "gpus_per_node": draw(st.integers(1, 8)),
            "nics_per_node": draw(st.integers(1, 8)),
        },
        "workload": {
            "model_params_b": draw(st.floats(0.1, 2000)),
            "tokens_per_run_b": draw(st.floats(1, 5000)),
            "global_batch_tokens_m": draw(st.floats(0.25, 16)),
            "parallelism": parallelism,
            "pipeline_stages": draw(st.integers(1, min(32, nodes))),
            "schedule": draw(st.sampled_from(["plan", "always_busy"])),
            "runs_per_year": draw(st.floats(0.5, 50)),
            "full_recompute": draw(st.booleans()),
        },
        "facility": {
            "pue": draw(st.floats(1.0, 2.0)),
            "electricity_price_per_kwh": draw(st.floats(0.0, 0.5)),
            "gpu_busy_power_frac": busy,
            "gpu_idle_power_frac": draw(st.floats(0.0, busy)),
            "cooling": draw(st.sampled_from(["air", "liquid"])),
            "build_cooling": draw(st.booleans()),
            "rack_power_limit_kw": draw(st.floats(5.0, 150.0)),
        },
        "operations": {
            "restart_minutes": draw(st.floats(0, 120)),
            "checkpoint_write_gbs_per_node": draw(st.floats(0.2, 20)),
        },
        "finance": {
            "horizon_years": horizon,
            "discount_rate": draw(st.floats(0.0, 0.3)),
            "payment": payment,
            "instalment_months": draw(st.integers(1, 12 * horizon)),
            "instalment_rate_annual": draw(st.floats(0.0, 0.2)),
            "residual_value_frac": draw(st.floats(0.0, 0.5)),
        },
        "fabrics": fabrics,
        "baseline": baseline,
    }
    return Scenario.model_validate(data)


@st.composite
def extreme_scenarios(draw) -> Scenario:
    """Valid scenarios pushed to the edges of every bound (finiteness and robustness)."""
    base = draw(scenarios(max_nodes=100_000)).model_dump()
    edge = lambda lo, hi: draw(st.one_of(st.just(lo), st.just(hi), st.floats(lo, hi)))  # noqa: E731
    base["workload"].update(
        model_params_b=edge(0.01, 100_000.0), tokens_per_run_b=edge(0.001, 1_000_000.0),
        global_batch_tokens_m=edge(0.001, 1_000.0), compute_efficiency=edge(0.01, 1.0),
        runs_per_year=edge(1e-6, 100_000.0),
    )
    base["cluster"]["nodes"] = max(base["workload"]["pipeline_stages"],
                                   draw(st.sampled_from([1, 2, 3, 100_000, draw(st.integers(1, 100_000))])))
    base["operations"].update(
        checkpoint_write_gbs_per_node=edge(0.01, 1_000.0), restart_minutes=edge(0.0, 1_440.0),
    )
    base["facility"].update(pue=edge(1.0, 3.0), electricity_price_per_kwh=edge(0.0, 10.0))
    return Scenario.model_validate(base)
