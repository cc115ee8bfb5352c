"""The quick estimate's scenario: a customer's three answers applied to a blank scenario.

The answers are what is trained (a named model of ``data/guided.yaml``), on how many servers of
which GPU, and what matters most (``time``, ``cost`` or ``risk``). :func:`build` turns them into an
ordinary :class:`~costmodel.scenario.schema.Scenario`, so the guide's answer is the same document
every page, file and share link already reads: nothing of the guide is stored beside it. ``cost``
sets the seed rule's tight budget (``context.budget_tight``); ``time`` and ``risk`` leave the
scenario as it is and only choose which of the model's answers leads (:mod:`costmodel.analysis.guided`).

>>> from costmodel.scenario.schema import Scenario
>>> s = build(Scenario(), "dense-70b", "h100", 8, "cost")
>>> s.workload.model_params_b, s.cluster.nodes, s.context.budget_tight
(70.0, 8, True)
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from types import MappingProxyType

import yaml

from costmodel.catalog.loader import DATA_DIR, load_catalog
from costmodel.errors import CatalogError, ChoiceError, RangeError
from costmodel.scenario.changes import repair
from costmodel.scenario.schema import Scenario, Workload
from costmodel.scenario.validation import validate_scenario

DATA_FILE = DATA_DIR / "guided.yaml"
PRIORITIES = ("time", "cost", "risk")


@dataclass(frozen=True)
class GuidedModel:
    """A named model: its id, its names (en, zh) and the workload fields it sets."""

    id: str
    name: str
    name_zh: str
    workload: MappingProxyType
    source: str
    as_of: str

    def label(self, lang: str) -> str:
        return self.name_zh if lang == "zh" else self.name


@functools.cache
def _file() -> dict:
    with DATA_FILE.open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=yaml.CSafeLoader) or {}


@functools.cache
def models() -> MappingProxyType:
    """The named models by id, in the file's order; checked: known sources, workload fields only."""
    raw = _file()
    refs = load_catalog().references
    fields = set(Workload.model_fields)
    out = {}
    for m in raw.get("models") or []:
        unknown = set(m["workload"]) - fields
        if m["source"] not in refs or unknown:
            raise CatalogError(f"{DATA_FILE.name}: {m['id']}: unknown source {m['source']!r} or fields {unknown}")
        out[m["id"]] = GuidedModel(m["id"], m["name"], m["name_zh"], MappingProxyType(dict(m["workload"])),
                                   m["source"], m["as_of"])
    return MappingProxyType(out)


def workload_choices() -> dict:
    """The choices every guided model takes (the layout searched, not chosen)."""
    return dict(_file().get("workload_choices") or {})


def nodes_for(gpus: int, gpus_per_node: int) -> int:
    """Servers that hold ``gpus`` GPUs, ``gpus_per_node`` a server (rounded up).

    >>> nodes_for(64, 8), nodes_for(65, 8), nodes_for(1, 8)
    (8, 9, 1)
    """
    if gpus < 1 or gpus_per_node < 1:
        raise RangeError(f"give at least one GPU (got {gpus})", "gpus", 1, math.inf, got=gpus)
    return math.ceil(gpus / gpus_per_node)


def build(base: Scenario, model: str, gpu: str, nodes: int, priority: str) -> Scenario:
    """``base`` (a language's blank scenario) with the guide's answers; ScenarioError when invalid.

    The workload is the blank one with the model's fields (a dense model after a mixture of experts
    keeps no expert), the cluster is ``nodes`` servers of ``gpu`` at the GPU's own server design.
    """
    if model not in models():
        raise ChoiceError(f"unknown model {model[:40]!r}; allowed: {', '.join(models())}", "model", models(),
                          got=model[:40])
    if priority not in PRIORITIES:
        raise ChoiceError(f"unknown priority {priority[:20]!r}; allowed: {', '.join(PRIORITIES)}", "priority",
                          PRIORITIES, got=priority[:20])
    data = base.model_dump(mode="json")
    blank = Scenario().model_dump(mode="json")["workload"]  # no field of another model stays behind
    data["workload"] = {**blank, **workload_choices(), **models()[model].workload}
    data["cluster"].update(gpu=gpu, nodes=int(nodes), gpus_per_node=None, nics_per_node=None)
    data["context"]["budget_tight"] = priority == "cost"
    repair(data)
    return validate_scenario(data)


__all__ = ["PRIORITIES", "GuidedModel", "build", "models", "nodes_for", "workload_choices"]
