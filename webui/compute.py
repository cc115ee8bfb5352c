"""Cached calls into the model. Keys are the scenario's canonical JSON (:func:`key`), so equal
scenarios share results. Pages receive the model's own types — a :class:`~costmodel.pipeline.results.Result`,
the sweep table, break-even node counts — and only format and draw them."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import streamlit as st

import costmodel
from costmodel.analysis import breakeven, crossings, guided, work_resize, work_risk
from costmodel.pipeline.results import Result
from costmodel.serving import answers as serving_model

SWEEP_NODES = np.unique(np.geomspace(2, 16_384, 400).round().astype(int))


def key(scenario: costmodel.Scenario) -> str:
    """The scenario's canonical JSON: the cache key of everything computed from it."""
    return scenario.model_dump_json()


def _load(scenario_json: str, scenario: costmodel.Scenario | None = None) -> costmodel.Scenario:
    """The scenario itself when the caller passed it (no re-parsing), else parsed from the key."""
    return scenario if scenario is not None else costmodel.Scenario.model_validate_json(scenario_json)


@st.cache_data(max_entries=128, show_spinner=False)
def evaluate(scenario_json: str, _scenario: costmodel.Scenario | None = None) -> Result:
    """The model's :class:`~costmodel.pipeline.results.Result` of a scenario; cached by its JSON
    (``_scenario`` is not hashed)."""
    return costmodel.evaluate(_load(scenario_json, _scenario))


def sweep_key(scenario: costmodel.Scenario) -> str:
    """The cache key of a node-count sweep: the scenario's canonical JSON without its node count,
    which a sweep replaces by each of its own (the model reads the node count from nowhere else;
    tests/unit/test_sweep_key.py checks it), so changing only the node count reuses the sweep."""
    data = json.loads(key(scenario))
    data["cluster"]["nodes"] = None
    return json.dumps(data, separators=(",", ":"))


@st.cache_data(max_entries=32, show_spinner=False)
def sweep(sweep_json: str, _scenario: costmodel.Scenario) -> pd.DataFrame:
    """TCO against node count, 2 … 16 384 (400 points, log-spaced), of ``_scenario``; cached by its
    :func:`sweep_key` (``_scenario`` is not hashed)."""
    return costmodel.sweep(_scenario, nodes=SWEEP_NODES)


@st.cache_data(max_entries=32, show_spinner=False)
def node_break_evens(sweep_json: str, metric: str, _scenario: costmodel.Scenario) -> list[crossings.NodeBreakEven]:
    """Node counts of :func:`sweep` where each fabric and the baseline swap places on ``metric``."""
    return crossings.node_break_evens(sweep(sweep_json, _scenario), _scenario.baseline, metric)


@st.cache_data(max_entries=16, show_spinner=False)
def monte_carlo(scenario_json: str, draws: int, seed: int, metric: str = "tco") -> tuple[np.ndarray, pd.DataFrame]:
    """TCO per draw and fabric and its summary; ``metric`` ``tco_after_tax``: the after-tax TCO's."""
    mc = costmodel.monte_carlo(_load(scenario_json), draws=draws, seed=seed)
    if metric == "tco_after_tax":
        mc = dataclasses.replace(mc, tco=mc.tco_after_tax)
    return mc.tco, mc.summary()


@st.cache_data(max_entries=16, show_spinner=False)
def work_monte_carlo(scenario_json: str, draws: int, seed: int) -> pd.DataFrame:
    """The same work under uncertainty: :meth:`costmodel.analysis.work_risk.WorkMonteCarlo.summary` (each fabric
    at the size :func:`evaluate` found for the plan)."""
    return work_risk.work_monte_carlo(_load(scenario_json), draws=draws, seed=seed,
                                      work=evaluate(scenario_json).equal_work).summary()


@st.cache_data(max_entries=16, show_spinner=False)
def resized_work_monte_carlo(scenario_json: str, draws: int, seed: int) -> pd.DataFrame:
    """The same work re-sized in every draw: :meth:`costmodel.analysis.work_resize.ResizedMonteCarlo.summary`
    (the search starts from the sizes :func:`evaluate` found for the plan)."""
    return work_resize.resized_monte_carlo(_load(scenario_json), draws=draws, seed=seed,
                                           work=evaluate(scenario_json).equal_work).summary()


@st.cache_data(max_entries=32, show_spinner=False)
def tornado(scenario_json: str, fabric: str, metric: str = "tco") -> pd.DataFrame:
    """ΔTCO swings (tco, tco_after_tax) or those of the cost of the same work (work_cost, on the sizes
    :func:`evaluate` found)."""
    work = evaluate(scenario_json).equal_work if metric == "work_cost" else None
    return costmodel.tornado(_load(scenario_json), fabric, metric, work=work)


@st.cache_data(max_entries=64, show_spinner=False)
def break_even(scenario_json: str, fabric: str, parameter: str, applies_to: str | None):
    return breakeven.break_even(_load(scenario_json), fabric, parameter, applies_to=applies_to)


@st.cache_data(max_entries=32, show_spinner=False)
def guided_budget(sweep_json: str, budget: float, _scenario: costmodel.Scenario) -> guided.Budgeted:
    """The largest cluster of ``_scenario`` whose cheapest fabric's TCO fits ``budget`` [the scenario's
    currency]; cached by the scenario's :func:`sweep_key` (its node count is what is sought)."""
    return guided.largest_within(_scenario, budget)


@st.cache_data(max_entries=32, show_spinner=False)
def serving(scenario_json: str, _scenario: costmodel.Scenario | None = None) -> serving_model.ServingAnswers:
    """The serving answers of a scenario's ``serving`` section per fabric
    (:func:`costmodel.serving.serving_answers`); cached by its JSON."""
    return serving_model.serving_answers(_load(scenario_json, _scenario))


@st.cache_data(max_entries=32, show_spinner=False)
def serving_curve(scenario_json: str, _scenario: costmodel.Scenario | None = None) -> dict[str, np.ndarray]:
    """Each fabric's latency against throughput of one instance (:func:`costmodel.serving.answers.latency_curve`)."""
    return serving_model.latency_curve(_load(scenario_json, _scenario))
