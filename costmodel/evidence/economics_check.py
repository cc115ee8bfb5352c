"""Published economic figures beside the model's (``data/economics_anchors.yaml``).

Each anchor names a published figure (a value, a range, or a ratio of published parts), the
configuration the model runs to compare (a preset with changes and one fabric) and a tolerance.
The model's figure is recomputed on every call through :func:`costmodel.api.evaluate` (or, for
rental prices, :mod:`costmodel.analysis.rent`'s table), so a change of prices or BOM re-evaluates every
anchor; nothing of the model is stored in the data file. Shares are fractions [1], money USD.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from costmodel.analysis.rent import load_rental_table, owned_cost_per_gpu_hour
from costmodel.api import evaluate
from costmodel.catalog.loader import DATA_DIR, Catalog, load_catalog
from costmodel.errors import CatalogError
from costmodel.pipeline.results import FabricResult, Result
from costmodel.scenario.presets import load_preset
from costmodel.scenario.schema import Scenario

ANCHOR_FILE = DATA_DIR / "economics_anchors.yaml"
Metric = Literal["network_share_of_hardware_and_energy", "network_share", "network_share_ex_nics", "switches",
                 "switch_and_link_capex", "owned_cost_per_gpu_hour", "cluster_hour_per_gpu", "rental_price"]
UNITS: dict[str, str] = {"network_share_of_hardware_and_energy": "share", "network_share": "share",
                         "network_share_ex_nics": "share",
                         "switches": "count", "switch_and_link_capex": "usd", "owned_cost_per_gpu_hour": "usd_h",
                         "cluster_hour_per_gpu": "usd_h", "rental_price": "usd_h"}


class Ratio(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    numerator: tuple[float, ...]
    denominator: tuple[float, ...]


class Published(BaseModel):
    """The published figure: one value, a range, or the ratio of two sums of published parts;
    ``factor`` (with ``factor_why``) converts it to the model's basis when the source states one
    (e.g. a starting price of a price path that falls to half: its mean is 0.75 of it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    value: float | None = None
    low: float | None = None
    high: float | None = None
    ratio: Ratio | None = None
    factor: float = 1.0
    factor_why: str = ""

    @model_validator(mode="after")
    def _one_form(self) -> Published:
        forms = [self.value is not None, self.low is not None and self.high is not None, self.ratio is not None]
        if sum(forms) != 1 or (self.low is None) != (self.high is None):
            raise ValueError("give exactly one of value, low + high, ratio")
        if self.low is not None and self.low > self.high:
            raise ValueError("low must not exceed high")
        if not self.factor > 0:
            raise ValueError("factor must be positive")
        if self.factor != 1.0 and len(self.factor_why) < 10:
            raise ValueError("a factor needs factor_why")
        return self

    @property
    def bounds(self) -> tuple[float, float]:
        """(low, high) of the published figure on the model's basis; equal for a single value."""
        if self.ratio is not None:
            lo = hi = sum(self.ratio.numerator) / sum(self.ratio.denominator)
        elif self.value is not None:
            lo = hi = self.value
        else:
            lo, hi = self.low, self.high
        return lo * self.factor, hi * self.factor


class Tolerance(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["relative", "absolute"]
    value: float

    @model_validator(mode="after")
    def _not_negative(self) -> Tolerance:
        if not self.value >= 0:
            raise ValueError("tolerance.value must not be negative")
        return self


class Config(BaseModel):
    """What the model runs: a preset with dotted-path changes and one fabric, or a rental-table cell."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    preset: str | None = None
    fabric: str | None = None
    changes: dict[str, float | int | str] = Field(default_factory=dict)
    gpu: str | None = None
    rental_class: str | None = None
    note: str = ""


class Anchor(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    source: str
    text: str
    measures: str
    metric: Metric
    published: Published
    tolerance: Tolerance
    tolerance_why: str = Field(min_length=10)
    config: Config
    expected: Literal["within", "miss"]
    miss_direction: Literal["above", "below"] | None = None
    miss_reason: str = ""

    @model_validator(mode="after")
    def _check(self) -> Anchor:
        if self.expected == "miss" and (self.miss_direction is None or len(self.miss_reason) < 10):
            raise ValueError(f"{self.id}: an expected miss needs miss_direction and miss_reason")
        if self.expected == "within" and (self.miss_direction or self.miss_reason):
            raise ValueError(f"{self.id}: miss_direction / miss_reason only for an expected miss")
        if self.metric == "rental_price":
            if not (self.config.gpu and self.config.rental_class):
                raise ValueError(f"{self.id}: rental_price needs config.gpu and config.rental_class")
        elif not (self.config.preset and self.config.fabric):
            raise ValueError(f"{self.id}: {self.metric} needs config.preset and config.fabric")
        return self


class AnchorFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    as_of: str
    anchors: tuple[Anchor, ...]


@dataclass(frozen=True)
class AnchorCheck:
    """One anchor: the published figure, the model's, the error and the verdict."""

    anchor: Anchor
    low: float
    high: float
    model: float

    @property
    def error(self) -> float:
        """Distance to the nearest published bound (0 inside): relative or absolute per the tolerance."""
        ref = self.high if self.model > self.high else self.low if self.model < self.low else None
        if ref is None:
            return 0.0
        return self.model / ref - 1.0 if self.anchor.tolerance.kind == "relative" else self.model - ref

    @property
    def within(self) -> bool:
        return abs(self.error) <= self.anchor.tolerance.value + 1e-12

    @property
    def verdict(self) -> str:
        return "within" if self.within else "miss"

    @property
    def direction(self) -> str | None:
        """``above`` / ``below`` the published figure, None inside it."""
        return "above" if self.model > self.high else "below" if self.model < self.low else None


@lru_cache(maxsize=1)
def load_anchors() -> AnchorFile:
    """The anchors as stored, validated; every source must be a reference key."""
    doc = AnchorFile.model_validate(yaml.load(ANCHOR_FILE.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader))
    refs = load_catalog().references
    for a in doc.anchors:
        if a.source not in refs:
            raise CatalogError(f"{ANCHOR_FILE.name}: {a.id}: unknown source key {a.source!r}")
    if len({a.id for a in doc.anchors}) != len(doc.anchors):
        raise CatalogError(f"{ANCHOR_FILE.name}: anchor ids must be unique")
    return doc


def scenario_of(config: Config) -> Scenario:
    """The preset's scenario with ``config.changes`` (dotted paths) applied and only ``config.fabric``."""
    data = load_preset(config.preset).model_dump()
    for path, value in config.changes.items():
        *parents, leaf = path.split(".")
        node = data
        for p in parents:
            node = node[p]
        if leaf not in node:
            raise CatalogError(f"{ANCHOR_FILE.name}: unknown scenario field {path!r}")
        node[leaf] = value
    data.update(fabrics=[config.fabric], baseline=config.fabric)
    return Scenario.model_validate(data)


def _figure(metric: str, result: Result, fab: FabricResult, gpus: float) -> float:
    m = fab.metrics
    net, comp = fab.network_capex_purchase, fab.compute_capex_purchase
    if metric == "network_share_of_hardware_and_energy":
        bd = fab.breakdown
        return bd["network_capex"] / (bd["compute_capex"] + bd["network_capex"] + bd["energy"])
    if metric == "network_share":
        return net / (net + comp)
    if metric == "network_share_ex_nics":
        return (net - m["capex_nics"]) / (net + comp)
    if metric == "switches":
        return float(m["switches"])
    if metric == "switch_and_link_capex":
        return float(m["capex_switches"] + m["capex_links"])
    if metric == "owned_cost_per_gpu_hour":
        return float(owned_cost_per_gpu_hour(m["cash_total"] / result.horizon_years, gpus, 1.0))
    if metric == "cluster_hour_per_gpu":
        return float(m["value_of_cluster_hour"] / gpus)
    raise ValueError(metric)


def model_figure(anchor: Anchor, catalog: Catalog | None = None) -> float:
    """The model's figure for ``anchor``, computed now from ``catalog`` (None: the packaged one)."""
    cfg = anchor.config
    if anchor.metric == "rental_price":
        table = load_rental_table()
        return float(table.gpus[cfg.gpu][cfg.rental_class].typical)  # USD (the table's currency)
    scenario = scenario_of(cfg)
    result = evaluate(scenario, catalog=catalog)
    if UNITS[anchor.metric] in ("usd", "usd_h") and result.currency != "USD":
        raise CatalogError(f"{anchor.id}: published figures are USD, the scenario computes in {result.currency}")
    gpus = scenario.cluster.nodes * scenario.cluster.gpus_per_node
    return _figure(anchor.metric, result, result.fabric(cfg.fabric), gpus)


def check(anchor: Anchor, catalog: Catalog | None = None) -> AnchorCheck:
    """``anchor`` against the model."""
    lo, hi = anchor.published.bounds
    return AnchorCheck(anchor=anchor, low=lo, high=hi, model=model_figure(anchor, catalog))


@lru_cache(maxsize=1)
def check_all() -> tuple[AnchorCheck, ...]:
    """Every anchor against the packaged model (cached: the catalogs are read once)."""
    return tuple(check(a) for a in load_anchors().anchors)


def _fmt(metric: str, x: float) -> str:
    unit = UNITS[metric]
    if unit == "share":
        return f"{x:.1%}"
    if unit == "count":
        return f"{x:,.0f}"
    if unit == "usd":
        return f"{x / 1e6:,.2f} M USD"
    return f"{x:.2f} USD/GPU-h"


def _published(c: AnchorCheck) -> str:
    m = c.anchor.metric
    return _fmt(m, c.low) if c.low == c.high else f"{_fmt(m, c.low)} – {_fmt(m, c.high)}"


def _tol(c: AnchorCheck) -> str:
    t = c.anchor.tolerance
    if t.kind == "relative":
        return f"± {t.value:.0%}"
    return f"± {t.value * 100:.0f} pt" if UNITS[c.anchor.metric] == "share" else f"± {t.value:g}"


def _err(c: AnchorCheck) -> str:
    if c.anchor.tolerance.kind == "relative":
        return f"{c.error:+.1%}"
    return f"{c.error * 100:+.1f} pt" if UNITS[c.anchor.metric] == "share" else f"{c.error:+.3g}"


def markdown() -> str:
    """The anchors as a Markdown table (docs/validation.md embeds it between economics markers)."""
    lines = ["| anchor | source | measures | published | model | error | tolerance | verdict |",
             "|---|---|---|---|---|---|---|---|"]
    for c in check_all():
        a = c.anchor
        verdict = "within" if c.within else "**miss**"
        if a.expected == "miss" and not c.within:
            verdict += " (recorded)"
        lines.append(f"| {a.text} | `{a.source}` | {a.measures} | {_published(c)} | {_fmt(a.metric, c.model)} | "
                     f"{_err(c)} | {_tol(c)} | {verdict} |")
    return "\n".join(lines)
