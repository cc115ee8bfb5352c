"""Presets: one scenario per case of the source article, with its claims stored beside it."""

from __future__ import annotations

import functools
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PositiveInt, ValidationError

from costmodel.catalog.loader import DATA_DIR
from costmodel.errors import CatalogError, problem, problems_error
from costmodel.scenario.schema import Scenario

PRESET_DIR = DATA_DIR / "presets"

ClaimMetric = Literal[
    "run_days_ratio", "network_interruptions_per_run", "network_lost_hours_per_run",
    "network_interruption_cost_per_run_cny", "cpu_share", "latency_us", "network_capex_per_node_cny",
    "network_capex_ratio", "tco_delta_cny", "tco_total_cny", "energy_saving_per_year_cny",
]


class Claim(BaseModel):
    """One figure the article states, and which model figure it corresponds to."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    metric: ClaimMetric
    fabric: str
    other: str | None = None
    claimed: float | tuple[float, float]
    text: str
    text_zh: str = ""


class ReferenceReading(BaseModel):
    """Another reading of the article's hardware, checked beside its own: the reference server's NICs."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    nics_per_node: PositiveInt  # compute NICs per server in the reference design
    text: str  # what that design is
    text_zh: str


class Preset(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    title: str
    title_zh: str
    source: str
    as_of: str
    quote: str
    rationale: dict[str, str] = Field(default_factory=dict)
    scenario: Scenario
    claims: list[Claim] = Field(default_factory=list)
    reference: ReferenceReading | None = None  # the claims are also checked under this reading


@functools.lru_cache(maxsize=1)
def _all() -> dict[str, Preset]:
    out = {}
    for path in sorted(PRESET_DIR.glob("*.yaml")):
        with path.open(encoding="utf-8") as fh:
            raw = yaml.load(fh, Loader=yaml.CSafeLoader)
        try:
            preset = Preset.model_validate(raw)
        except ValidationError as exc:
            raise CatalogError(f"preset {path.name} is invalid: {exc}") from exc
        if preset.id != path.stem:
            raise CatalogError(f"preset {path.name}: id {preset.id!r} must match the file name")
        out[preset.id] = preset
    return out


def list_presets() -> list[str]:
    """Ids of all presets, sorted."""
    return sorted(_all())


def get_preset(preset_id: str) -> Preset:
    """A preset with its claims; ScenarioError naming the known ids if unknown."""
    presets = _all()
    if preset_id not in presets:
        raise problems_error(problem("preset", f"unknown preset {preset_id!r}; allowed: {', '.join(sorted(presets))}",
                                     "unknown_preset", got=repr(preset_id), choices=", ".join(sorted(presets))))
    return presets[preset_id]


def load_preset(preset_id: str) -> Scenario:
    """The scenario of a preset."""
    return get_preset(preset_id).scenario
