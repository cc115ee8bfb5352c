"""The registry of quantities (``data/quantities.yaml``), loaded into frozen dataclasses.

One entry per scenario input and catalog quantity: unit, display scale, hard bounds (with the
reason in ``note``), label and help translation keys, the model array it feeds and its scale,
whether the tornado / Monte Carlo swing it and whether the break-even solver can solve for it.
The schema's bounds, the solver's parameters, the tornado's swings, the unit scaling of
``inputs.build``, the workbook's input rows and the app's widgets are generated from it, so an
input's bounds live in one place. The file is read once with PyYAML's safe loader (``CSafeLoader``) and checked;
a malformed entry raises :class:`~costmodel.errors.CatalogError` naming it.

>>> spec("fabric.ops_factor").bounds()
(0, 10)
>>> spec("workload.model_params_b").model_bounds()
(10000000.0, 100000000000000.0)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import yaml

from costmodel.errors import CatalogError, FieldError

QUANTITIES_FILE = Path(__file__).parent / "data" / "quantities.yaml"
SCENARIO_SECTIONS = ("cluster", "workload", "facility", "operations", "finance", "serving")
CATALOG_GROUPS = ("fabric", "fabric_price", "gpu", "gpu_price", "model", "price_book")
OTHER_GROUPS = ("money", "analysis", "measurement")  # inputs of the app and the exports; a fabric's fitted
# nccl-tests measurement (schema.Measurement), which the model reads through costmodel.physics.calibration
PER_FABRIC_GROUPS = ("fabric", "fabric_price")
SWINGS = ("scenario", "range")
_KEYS = frozenset({"id", "description", "empty", "unit", "integer", "min", "max", "min_exclusive", "note", "display",
                   "label", "help", "model", "swing", "solve", "override", "book", "excel", "widget"})
WIDGET_DIGITS = range(7)  # decimals a number box may show (a format, not a quantity)
_SIGNIFICANT = 12  # model-unit bounds are rounded to this many digits (0.01 × 1e9 is not exactly 1e7)


@dataclass(frozen=True)
class ModelLink:
    """The :class:`~costmodel.pipeline.inputs.Inputs` array a quantity feeds: ``value × scale`` in ``unit``.

    ``direct`` is False when ``inputs.build`` assembles the array in code (a default from the
    catalog, a choice between two catalog numbers, an empty field meaning "derived").
    """

    field: str
    scale: float
    unit: str
    direct: bool = True


@dataclass(frozen=True)
class Solve:
    """How the break-even solver varies a quantity (model units): its default window when the
    current value is 0 (``zero_window_hi``), a fixed window, and its floor for an exclusive
    lower bound."""

    zero_window_hi: float
    window: tuple[float, float] | None = None
    floor: float | None = None
    after_tax: bool = False  # it moves only the after-tax TCO (tax rate, tax lives): solve that ΔTCO


@dataclass(frozen=True)
class ExcelRow:
    """A row of the workbook's Inputs sheet: label key (``export_labels.yaml`` ``inputs``), unit key."""

    key: str
    unit: str
    editable: bool


@dataclass(frozen=True)
class Widget:
    """How a number box shows a scenario input, in display units: decimals shown and the +/- step
    (None = the widget's own)."""

    digits: int | None = None
    step: float | None = None


@dataclass(frozen=True)
class QuantitySpec:
    """One registry entry (see the header of ``data/quantities.yaml`` for each field)."""

    id: str
    unit: str
    note: str
    label: str
    help: str | None
    integer: bool = False
    lo: float | None = None
    hi: float | None = None
    lo_exclusive: bool = False
    display_scale: float = 1.0
    display_unit: str | None = None
    display_label: str | None = None
    model: ModelLink | None = None
    swing: str | None = None
    solve: Solve | None = None
    override: bool = False
    book: bool = False
    excel: ExcelRow | None = None
    description: str = ""
    empty: bool = False
    widget: Widget = Widget()

    @property
    def group(self) -> str:
        """``scenario`` for a scenario input, else the catalog group (``fabric``, ``gpu_price`` …)."""
        head = self.id.split(".", 1)[0]
        return "scenario" if head in SCENARIO_SECTIONS else head

    @property
    def name(self) -> str:
        """The last part of the id: the scenario field or catalog quantity name."""
        return self.id.rsplit(".", 1)[-1]

    @property
    def per_fabric(self) -> bool:
        """True for a quantity with one value per fabric (model shape ``(1, F)``)."""
        return self.group in PER_FABRIC_GROUPS

    def bounds(self) -> tuple[float | None, float | None]:
        """Hard bounds in ``unit`` (None = unbounded on that side)."""
        return self.lo, self.hi

    def field_kwargs(self) -> dict[str, float]:
        """The pydantic ``Field`` constraints: ``ge``/``gt`` and ``le``."""
        out: dict[str, float] = {}
        if self.lo is not None:
            out["gt" if self.lo_exclusive else "ge"] = self.lo
        if self.hi is not None:
            out["le"] = self.hi
        return out

    def model_bounds(self) -> tuple[float, float]:
        """Bounds in the model's unit (``model.unit``); an exclusive lower bound becomes the solver's floor."""
        if self.model is None or self.lo is None or self.hi is None:
            raise CatalogError(f"quantities.yaml: {self.id}: needs model, min and max for model bounds")
        lo = self.solve.floor if self.lo_exclusive and self.solve and self.solve.floor is not None else None
        if lo is None:
            lo = _round(self.lo * self.model.scale)
        return float(lo), _round(self.hi * self.model.scale)

    def check(self, value: float, where: str | None = None) -> None:
        """Raise :class:`~costmodel.errors.FieldError` (a ``ValueError``, code ``out_of_range``) naming
        the field and the allowed range when ``value`` is outside it."""
        lo_ok = self.lo is None or (value > self.lo if self.lo_exclusive else value >= self.lo)
        hi_ok = self.hi is None or value <= self.hi
        if not (lo_ok and hi_ok and math.isfinite(value)):
            raise FieldError(where or self.id, f"{value:g} is out of range; allowed: {self.range_text()}",
                             "out_of_range", got=f"{value:g}", lo="" if self.lo is None else f"{self.lo:g}",
                             hi="" if self.hi is None else f"{self.hi:g}")

    def range_text(self) -> str:
        """The allowed range in words, e.g. ``≥ 0 and ≤ 10 [ratio]``."""
        parts = []
        if self.lo is not None:
            parts.append(f"{'>' if self.lo_exclusive else '≥'} {self.lo:g}")
        if self.hi is not None:
            parts.append(f"≤ {self.hi:g}")
        return " and ".join(parts) + f" [{self.unit}]"


def _round(x: float) -> float:
    return float(f"{x:.{_SIGNIFICANT}g}")


def _number(entry: str, key: str, value, allow_none: bool = True) -> float | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise CatalogError(f"quantities.yaml: {entry}: {key} must be a finite number (got {value!r})")
    return value


def _solve(qid: str, s: dict) -> Solve:
    """The ``solve`` block of entry ``qid``, checked."""
    window = s.get("window")
    if window is not None:
        window = tuple(float(_number(qid, "solve.window", w, allow_none=False)) for w in window)
        if len(window) != 2 or not window[0] < window[1]:
            raise CatalogError(f"quantities.yaml: {qid}: solve.window must be [low, high] with low < high")
    if not isinstance(s.get("after_tax", False), bool):
        raise CatalogError(f"quantities.yaml: {qid}: solve.after_tax must be true or false")
    return Solve(float(_number(qid, "solve.zero_window_hi", s.get("zero_window_hi"), allow_none=False)),
                  window, None if s.get("floor") is None else float(_number(qid, "solve.floor", s["floor"])),
                  bool(s.get("after_tax", False)))


def _widget(qid: str, w: dict | None) -> Widget:
    """The ``widget`` block of entry ``qid``, checked: ``digits`` a whole number 0-6, ``step`` > 0."""
    if w is None:
        return Widget()
    if not isinstance(w, dict) or set(w) - {"digits", "step"}:
        raise CatalogError(f"quantities.yaml: {qid}: widget takes digits and step only (got {w!r})")
    digits, step = w.get("digits"), _number(qid, "widget.step", w.get("step"))
    if digits is not None and (type(digits) is not int or digits not in WIDGET_DIGITS):
        raise CatalogError(f"quantities.yaml: {qid}: widget.digits must be a whole number from 0 to 6")
    if step is not None and step <= 0:
        raise CatalogError(f"quantities.yaml: {qid}: widget.step must be > 0")
    return Widget(digits, None if step is None else float(step))


def _entry(raw: dict) -> QuantitySpec:
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
        raise CatalogError(f"quantities.yaml: every entry needs an id (got {raw!r})")
    qid = raw["id"]
    unknown = set(raw) - _KEYS
    if unknown:
        raise CatalogError(f"quantities.yaml: {qid}: unknown keys {sorted(unknown)}; allowed: {sorted(_KEYS)}")
    head = qid.split(".", 1)[0]
    heads = (*SCENARIO_SECTIONS, *CATALOG_GROUPS, *OTHER_GROUPS)
    if "." not in qid or head not in heads:
        raise CatalogError(f"quantities.yaml: {qid}: id must be <section>.<field> or <group>.<name>; "
                           f"allowed heads: {', '.join(heads)}")
    if not isinstance(raw.get("unit"), str) or not raw["unit"]:
        raise CatalogError(f"quantities.yaml: {qid}: unit is required")
    lo, hi = _number(qid, "min", raw.get("min")), _number(qid, "max", raw.get("max"))
    integer = bool(raw.get("integer", False))
    if lo is not None and hi is not None and not lo < hi:
        raise CatalogError(f"quantities.yaml: {qid}: need min < max (got {lo}, {hi})")
    if integer and any(b is not None and not float(b).is_integer() for b in (lo, hi)):
        raise CatalogError(f"quantities.yaml: {qid}: an integer quantity needs whole-number bounds")
    note = raw.get("note") or ""
    if (lo is not None or hi is not None) and not note.strip():
        raise CatalogError(f"quantities.yaml: {qid}: a bounded quantity needs a note saying why")
    scenario = head in SCENARIO_SECTIONS
    display = raw.get("display") or {}
    scale = _number(qid, "display.scale", display.get("scale", 1.0), allow_none=False)
    if scale <= 0:
        raise CatalogError(f"quantities.yaml: {qid}: display.scale must be > 0")
    model = None
    if raw.get("model") is not None:
        m = raw["model"]
        if not isinstance(m.get("field"), str) or not isinstance(m.get("unit"), str):
            raise CatalogError(f"quantities.yaml: {qid}: model needs field and unit")
        mscale = _number(qid, "model.scale", m.get("scale"), allow_none=False)
        model = ModelLink(m["field"], float(mscale), m["unit"], bool(m.get("direct", True)))
    swing = raw.get("swing")
    if swing is not None and swing not in SWINGS:
        raise CatalogError(f"quantities.yaml: {qid}: swing must be one of {', '.join(SWINGS)} (got {swing!r})")
    if swing == "scenario" and not scenario:
        raise CatalogError(f"quantities.yaml: {qid}: only scenario inputs swing by ± tornado_swing_frac")
    if swing == "range" and scenario:
        raise CatalogError(f"quantities.yaml: {qid}: a scenario input has no catalog range to swing over")
    solve = None if raw.get("solve") is None else _solve(qid, raw["solve"])
    if (swing == "scenario" or solve) and (model is None or lo is None or hi is None):
        raise CatalogError(f"quantities.yaml: {qid}: a swung or solvable input needs model, min and max")
    if (swing == "scenario" or solve) and raw.get("min_exclusive") and (solve is None or solve.floor is None):
        raise CatalogError(f"quantities.yaml: {qid}: an exclusive lower bound needs solve.floor for the solver")
    override, book = bool(raw.get("override", False)), bool(raw.get("book", False))
    if (override or book) and (scenario or lo is None or hi is None):
        raise CatalogError(f"quantities.yaml: {qid}: override/book are for bounded catalog quantities")
    excel = None
    if raw.get("excel") is not None:
        e = raw["excel"]
        if model is None:
            raise CatalogError(f"quantities.yaml: {qid}: an Excel input row needs a model field")
        excel = ExcelRow(str(e["key"]), str(e["unit"]), bool(e["editable"]))
    description = raw.get("description", "")
    if scenario and (not isinstance(description, str) or not description.strip()):
        raise CatalogError(f"quantities.yaml: {qid}: a scenario input needs a description (its unit in brackets)")
    if not isinstance(raw.get("empty", False), bool) or (raw.get("empty") and not scenario):
        raise CatalogError(f"quantities.yaml: {qid}: empty is true or false, and only for scenario inputs")
    default_label = f"field.{qid}" if scenario else f"q.{qid.split('.', 1)[1]}"
    return QuantitySpec(
        id=qid, unit=raw["unit"], note=note.strip(), label=raw.get("label", default_label),
        help=raw.get("help", f"help.{qid}" if scenario else None), integer=integer, lo=lo, hi=hi,
        lo_exclusive=bool(raw.get("min_exclusive", False)), display_scale=float(scale),
        display_unit=display.get("unit"), display_label=display.get("label"), model=model, swing=swing,
        solve=solve, override=override, book=book, excel=excel, description=description,
        empty=bool(raw.get("empty", False)), widget=_widget(qid, raw.get("widget")),
    )


def load(path: Path | None = None) -> dict[str, QuantitySpec]:
    """Every entry of a registry file (default :data:`QUANTITIES_FILE`) by id, in file order (checked;
    see :func:`_entry`)."""
    path = QUANTITIES_FILE if path is None else path
    with path.open(encoding="utf-8") as fh:
        doc = yaml.load(fh, Loader=yaml.CSafeLoader)
    if not isinstance(doc, dict) or not isinstance(doc.get("quantities"), list):
        raise CatalogError(f"{path.name}: needs a 'quantities' list")
    out: dict[str, QuantitySpec] = {}
    for raw in doc["quantities"]:
        q = _entry(raw)
        if q.id in out:
            raise CatalogError(f"{path.name}: {q.id} is defined twice")
        out[q.id] = q
    solvable = [q.model.field for q in out.values() if q.solve]
    if len(set(solvable)) != len(solvable):
        raise CatalogError(f"{path.name}: two solvable entries feed the same model field")
    return out


@functools.cache
def registry() -> Mapping[str, QuantitySpec]:
    """The packaged registry (read once; read-only)."""
    return MappingProxyType(load())


def spec(qid: str) -> QuantitySpec:
    """One entry by id, e.g. ``cluster.nodes`` or ``fabric.ops_factor``."""
    try:
        return registry()[qid]
    except KeyError:
        raise KeyError(f"{qid!r} is not in quantities.yaml") from None


def field(qid: str) -> dict[str, float]:
    """The pydantic ``Field`` bound keywords of a scenario input: ``Field(..., **field("cluster.nodes"))``."""
    return spec(qid).field_kwargs()


@functools.cache
def group(name: str) -> Mapping[str, QuantitySpec]:
    """Entries of one group (``scenario``, ``fabric``, ``gpu_price`` …) by name (scenario: by path); read-only."""
    return MappingProxyType({(q.id if name == "scenario" else q.name): q
                             for q in registry().values() if q.group == name})


def section(name: str) -> tuple[QuantitySpec, ...]:
    """The numeric inputs of one scenario section (``cluster``, ``workload`` …), in file order."""
    if name not in SCENARIO_SECTIONS:
        raise KeyError(f"{name!r} is not a scenario section; allowed: {', '.join(SCENARIO_SECTIONS)}")
    return tuple(q for q in registry().values() if q.id.split(".", 1)[0] == name)


def override_bounds(name: str) -> dict[str, tuple[float, float]]:
    """``{quantity: (low, high)}`` a scenario may override in catalog group ``name``."""
    return {k: (float(q.lo), float(q.hi)) for k, q in group(name).items() if q.override}


def book_bounds(name: str) -> dict[str, tuple[float, float]]:
    """``{price: (low, high)}`` a derived price book may set in price group ``name``."""
    return {k: (float(q.lo), float(q.hi)) for k, q in group(name).items() if q.book}


def solvable() -> list[QuantitySpec]:
    """Entries the break-even solver can vary: scenario level first, then per fabric (file order)."""
    qs = [q for q in registry().values() if q.solve]
    return [q for q in qs if not q.per_fabric] + [q for q in qs if q.per_fabric]


def swung(kind: str) -> list[QuantitySpec]:
    """Entries swung in the tornado: ``scenario`` (± tornado_swing_frac) or ``range`` (catalog range)."""
    return [q for q in registry().values() if q.swing == kind]


@functools.cache
def direct(group_name: str) -> tuple[QuantitySpec, ...]:
    """Entries of a group that ``inputs.build`` maps by a plain unit scaling."""
    return tuple(q for q in group(group_name).values() if q.model is not None and q.model.direct)


def excel_rows(per_fabric: bool) -> list[QuantitySpec]:
    """Entries that are rows of the workbook's Inputs sheet (scenario-level or per-fabric)."""
    return [q for q in registry().values() if q.excel and q.per_fabric == per_fabric]
