"""One change to a scenario: set a field, repair what the change made inconsistent, validate.

:func:`with_change` is the only way the app edits a scenario field by field. A change that leaves
other fields inconsistent is repaired instead of refused, by the rules in :func:`repair`; a change that is still invalid
afterwards raises :class:`~costmodel.errors.ScenarioError` naming the field and its range.
No Streamlit here: the rules are tested on their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from costmodel.catalog.loader import load_catalog
from costmodel.scenario.validation import validate_scenario

if TYPE_CHECKING:
    from costmodel.scenario.schema import Scenario

MONTHS_PER_YEAR = 12


@dataclass(frozen=True)
class Change:
    """The scenario after a change, and the dotted paths :func:`repair` had to adjust."""

    scenario: Scenario
    repaired: tuple[str, ...] = ()


def set_path(data: dict, path: str, value: Any) -> dict:
    """Set dotted ``path`` in a scenario document (in place) and return the document.

    >>> set_path({"cluster": {"nodes": 8}}, "cluster.nodes", 16)
    {'cluster': {'nodes': 16}}
    """
    parts = path.split(".")
    node = data
    for part in parts[:-1]:
        node = node[part]
    if parts[-1] not in node:
        raise KeyError(path)
    node[parts[-1]] = value
    return data


def repair(data: dict) -> list[str]:
    """Adjust fields a change made inconsistent (in place) instead of refusing the change.

    Returns the dotted paths it changed:

    * ``baseline`` — the baseline was removed from ``fabrics``: the first fabric becomes the baseline;
    * ``finance.instalment_months`` — instalments run past the horizon: cut to ``12 × horizon_years``;
    * ``workload.pipeline_stages`` — more pipeline stages than nodes: cut to the node count.
    * ``measurements``, ``alltoall_measurements`` — a fabric with a measurement is no longer compared:
      its measurement goes.

    >>> doc = {"fabrics": ["b"], "baseline": "a",
    ...        "finance": {"payment": "instalments", "instalment_months": 60, "horizon_years": 2},
    ...        "workload": {"parallelism": "dp", "pipeline_stages": 64}, "cluster": {"nodes": 8}}
    >>> repair(doc), doc["baseline"], doc["finance"]["instalment_months"]
    (['baseline', 'finance.instalment_months'], 'b', 24)
    """
    changed = []
    if data["fabrics"] and data["baseline"] not in data["fabrics"]:
        data["baseline"] = data["fabrics"][0]
        changed.append("baseline")
    fin = data["finance"]
    if fin["payment"] == "instalments" and fin["instalment_months"] > MONTHS_PER_YEAR * fin["horizon_years"]:
        fin["instalment_months"] = MONTHS_PER_YEAR * fin["horizon_years"]
        changed.append("finance.instalment_months")
    for slot in ("measurements", "alltoall_measurements"):
        measured = data.get(slot)
        if isinstance(measured, dict) and any(f not in data["fabrics"] for f in measured):
            data[slot] = {f: m for f, m in measured.items() if f in data["fabrics"]}
            changed.append(slot)
    work = data["workload"]
    if work["parallelism"] == "pipeline" and work["pipeline_stages"] > data["cluster"]["nodes"]:
        work["pipeline_stages"] = data["cluster"]["nodes"]
        changed.append("workload.pipeline_stages")
    return changed


def keep_carried_fabrics(data: dict) -> list[str]:
    """After a change of GPU: drop the compared fabrics its server cannot carry (an Ascend server has no
    InfiniBand HCA); none left: the part's first fabric. Returns ``["fabrics"]`` when it changed them.
    A change of ``fabrics`` itself is never repaired: asking for a barred fabric is refused, naming it.

    >>> doc = {"cluster": {"gpu": "ascend-910b"}, "fabrics": ["ib-ndr-400", "roce-400"]}
    >>> keep_carried_fabrics(doc), doc["fabrics"]
    (['fabrics'], ['roce-400'])
    """
    part = load_catalog().gpus.get(data["cluster"]["gpu"])
    if part is None or all(part.carries(f) for f in data["fabrics"]):
        return []
    data["fabrics"] = [f for f in data["fabrics"] if part.carries(f)] or [part.fabrics[0]]
    return ["fabrics"]


def keep_serving_precision(data: dict) -> list[str]:
    """After a change of GPU: a serving precision the new part lacks falls back to BF16. Returns
    ``["serving.precision"]`` when it changed it.

    >>> doc = {"cluster": {"gpu": "a100-80"}, "serving": {"precision": "fp8"}}
    >>> keep_serving_precision(doc), doc["serving"]["precision"]
    (['serving.precision'], 'bf16')
    """
    part, serving = load_catalog().gpus.get(data["cluster"]["gpu"]), data.get("serving")
    if part is None or not isinstance(serving, dict) or part.peak_tflops(serving.get("precision", "bf16")):
        return []
    serving["precision"] = "bf16"
    return ["serving.precision"]


def with_change(scenario: Scenario, path: str, value: Any) -> Change:
    """``scenario`` with dotted field ``path`` set to ``value`` (JSON form), repaired and validated.

    Raises :class:`~costmodel.errors.ScenarioError` (naming the field and its allowed range)
    when the changed scenario is invalid even after :func:`repair`; ``scenario`` itself is
    never modified; ``KeyError`` for a path that is not a field of the scenario document.
    A blank ``name`` is no name of its own: the schema's default (the scenario is then titled by
    what it is, :func:`costmodel.scenario.titles.title`).
    """
    if path == "name" and isinstance(value, str) and not value.strip():
        value = type(scenario).model_fields["name"].default
    data = set_path(scenario.model_dump(mode="json"), path, value)
    repaired = keep_carried_fabrics(data) + keep_serving_precision(data) if path == "cluster.gpu" else []
    repaired += repair(data)
    return Change(validate_scenario(data), tuple(repaired))


__all__ = ["Change", "keep_carried_fabrics", "keep_serving_precision", "repair", "set_path", "with_change"]
