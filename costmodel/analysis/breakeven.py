"""Break-even solver: the value of one input at which a fabric and the baseline cost the same.

``ΔTCO(x) = TCO(fabric) − TCO(baseline)`` as a function of one numeric input ``x`` (all other
inputs at the scenario's values), evaluated on the vectorised model: a curve of ``S`` values
is one :func:`costmodel.pipeline.tco.compute` call with ``S`` rows. :func:`break_even` samples ΔTCO on
a grid, finds every sign change and refines all of them together (one model call per round).
Negative ΔTCO means the fabric (the "upgrade") is cheaper than the baseline.

Money is in the price book's currency; units of each input are in :data:`PARAMETERS`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from costmodel import quantities
from costmodel.analysis.crossings import sign_changes
from costmodel.errors import ChoiceError, InputError, RangeError
from costmodel.pipeline.inputs import Built, build
from costmodel.pipeline.tco import compute
from costmodel.scenario.schema import Scenario

MAX_VALUES = 100_000
MAX_ROUNDS = 30
RTOL = 1e-6
ATOL = 1e-9
GEOMETRIC_RATIO = 50.0
CHEAPER_ABOVE = "upgrade_cheaper_above"
CHEAPER_BELOW = "upgrade_cheaper_below"


@dataclass(frozen=True)
class ParamInfo:
    """An input the solver can vary: :class:`~costmodel.pipeline.inputs.Inputs` field and its bounds.

    ``lo_bound``/``hi_bound`` are hard limits in ``unit``; the default solve window is
    ``fixed_window`` if set, else current × 0.1 … current × 10 (or ``lo_bound`` …
    ``zero_window_hi`` when the current value is 0), clipped to the bounds.
    """

    name: str
    per_fabric: bool
    unit: str
    lo_bound: float
    hi_bound: float
    integer: bool = False
    fixed_window: tuple[float, float] | None = None
    zero_window_hi: float = 1.0
    after_tax: bool = False  # the solver measures the after-tax ΔTCO (the tax inputs move nothing else)


def _param(q: quantities.QuantitySpec) -> ParamInfo:
    lo, hi = q.model_bounds()
    return ParamInfo(q.model.field, q.per_fabric, q.model.unit, lo, hi, integer=q.integer,
                     fixed_window=q.solve.window, zero_window_hi=q.solve.zero_window_hi, after_tax=q.solve.after_tax)


# generated from the registry (data/quantities.yaml, entries with ``solve``): scenario level,
# shape (S, 1), first; then per fabric, shape (1, F); bounds in the model's unit
_PARAMS = tuple(_param(q) for q in quantities.solvable())

#: The inputs a user can solve for, by :class:`~costmodel.pipeline.inputs.Inputs` field name.
PARAMETERS: dict[str, ParamInfo] = {p.name: p for p in _PARAMS}


def _ro(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class BreakEven:
    """Result of :func:`break_even`.

    ``values`` is the grid of the input [``PARAMETERS[parameter].unit``], ``deltas`` ΔTCO on it
    [currency], ``roots`` the values where ΔTCO changes sign (ascending) and ``direction`` for
    each root whether the upgrade is cheaper above or below it. ``applies_to`` is the fabric
    whose column was varied (None for scenario-level inputs). ``metric`` is ``tco`` or, for the
    tax inputs (which move nothing else), ``tco_after_tax``.
    """

    parameter: str
    applies_to: str | None
    current_value: float
    current_delta: float
    values: np.ndarray
    deltas: np.ndarray
    roots: list[float]
    direction: list[str]
    fabric: str = ""
    baseline: str = ""
    currency: str = ""
    unit: str = ""
    metric: str = "tco"


@dataclass(frozen=True)
class _Problem:
    built: Built
    info: ParamInfo
    fabric: str
    baseline: str
    fab_j: int
    base_j: int
    col: int  # column varied for a per-fabric input (0 for scenario-level ones)
    applies_to: str | None

    def current(self) -> float:
        return float(getattr(self.built.inputs, self.info.name)[0, self.col])

    def deltas(self, values: np.ndarray) -> np.ndarray:
        """ΔTCO for each value, one model call with ``S = len(values)`` (no validation)."""
        p, name, s = self.built.inputs, self.info.name, values.size
        if self.info.per_fabric:
            arr = np.repeat(getattr(p, name), s, axis=0)
            arr[:, self.col] = values
        else:
            arr = values.reshape(-1, 1).astype(float)
        out = compute(p.replace(**{name: arr}), self.built.structure, lines=False)
        tco = out.metrics["tco_after_tax"] if self.info.after_tax else out.tco
        return tco[:, self.fab_j] - tco[:, self.base_j]


def _problem(scenario: Scenario, fabric: str, parameter: str, applies_to: str | None) -> _Problem:
    if parameter not in PARAMETERS:
        raise ChoiceError(f"unknown parameter {parameter!r}; allowed: {', '.join(PARAMETERS)}", "parameter",
                          PARAMETERS, parameter)
    info = PARAMETERS[parameter]
    built = build(scenario)
    ids = list(built.structure.fabric_ids)
    base_j = built.structure.baseline_index
    baseline = ids[base_j]
    others = [f for f in ids if f != baseline]
    if fabric not in others:
        raise ChoiceError(f"fabric {fabric!r} must be a non-baseline fabric of the scenario; "
                          f"allowed: {', '.join(others) or '(none)'}", "fabric", others, fabric, parameter)
    if info.per_fabric:
        target = fabric if applies_to is None else applies_to
        if target not in (fabric, baseline):
            raise ChoiceError(f"applies_to {applies_to!r} for {parameter}: allowed: {fabric}, {baseline}",
                              "applies_to", (fabric, baseline), applies_to, parameter)
        col = ids.index(target)
    else:
        if applies_to is not None:
            raise InputError(f"{parameter} is a scenario-level input: applies_to must be None "
                             f"(got {applies_to!r})", "applies_to", "None", parameter)
        target, col = None, 0
    return _Problem(built, info, fabric, baseline, ids.index(fabric), base_j, col, target)


def _check_values(info: ParamInfo, values, what: str = "values", whole: bool | None = None) -> np.ndarray:
    whole = info.integer if whole is None else whole
    try:
        arr = np.atleast_1d(np.asarray(values, dtype=float))
    except (TypeError, ValueError):
        raise InputError(f"{info.name}: {what} must be numbers", info.name, "numbers", info.name) from None
    if arr.ndim != 1 or not 1 <= arr.size <= MAX_VALUES:
        raise RangeError(f"{info.name}: give a 1-D array of 1 to {MAX_VALUES:,} {what}", info.name, 1, MAX_VALUES,
                         arr.size, what, info.name)
    bad = ~np.isfinite(arr) | (arr < info.lo_bound) | (arr > info.hi_bound)
    if whole:
        bad |= arr != np.round(arr)
    if bad.any():
        kind = "whole numbers" if whole else "finite numbers"
        raise RangeError(f"{info.name}: {what} must be {kind} in [{info.lo_bound:g}, {info.hi_bound:g}] "
                         f"{info.unit} (got {arr[bad][0]:g})", info.name, info.lo_bound, info.hi_bound,
                         float(arr[bad][0]), info.unit, info.name)
    return arr


def delta_curve(scenario: Scenario, fabric: str, parameter: str, values,
                applies_to: str | None = None) -> np.ndarray:
    """ΔTCO = TCO(``fabric``) − TCO(baseline) [currency] for each of the 1-D ``values`` (after tax
    for the tax inputs, ``PARAMETERS[parameter].after_tax``).

    ``values`` are in ``PARAMETERS[parameter].unit``; for a per-fabric input they replace the
    column of ``applies_to`` (default ``fabric``; may be the baseline). One model call.

    >>> d = delta_curve(Scenario(), "ib-ndr-400", "electricity_price", [0.05, 0.1, 0.2])
    >>> d.shape
    (3,)
    """
    prob = _problem(scenario, fabric, parameter, applies_to)
    return prob.deltas(_check_values(prob.info, values))


def _window(info: ParamInfo, current: float) -> tuple[float, float]:
    if info.fixed_window is not None:
        lo, hi = info.fixed_window
    elif current > 0:
        lo, hi = 0.1 * current, 10.0 * current
    else:
        lo, hi = info.lo_bound, info.zero_window_hi
    lo, hi = min(lo, current), max(hi, current)
    return max(lo, info.lo_bound), min(hi, info.hi_bound)


def _grid(lo: float, hi: float, points: int, integer: bool) -> np.ndarray:
    if lo > 0 and hi / lo > GEOMETRIC_RATIO:
        grid = np.geomspace(lo, hi, points)
    else:
        grid = np.linspace(lo, hi, points)
    grid[0], grid[-1] = lo, hi
    return np.unique(np.round(grid)) if integer else grid


def _brackets(deltas: np.ndarray):
    """Grid indices ``(a, b)`` bracketing each sign change of ``deltas``.

    ``a`` is the last nonzero point before the change, ``b`` the first finite point after it
    (a zero, or the next nonzero point, of the other sign). Touching zero without a sign change
    is not a root.

    >>> [i.tolist() for i in _brackets(np.array([2.0, 1.0, 0.0, -1.0, 0.0, -2.0, 3.0]))]
    [[1, 5], [2, 6]]
    """
    return sign_changes(deltas)  # the one rule for crossings (costmodel.analysis.crossings)


def _refine_integer(prob: _Problem, xa, xb, sa) -> np.ndarray:
    """Smallest integer in (xa, xb] whose ΔTCO no longer has the sign ``sa`` (bisection)."""
    for _ in range(MAX_ROUNDS):
        active = xb - xa > 1
        if not active.any():
            break
        m = np.floor(0.5 * (xa[active] + xb[active]))
        same = np.sign(prob.deltas(m)) == sa[active]
        xa[active] = np.where(same, m, xa[active])
        xb[active] = np.where(same, xb[active], m)
    return xb


def _tolerance(x: np.ndarray) -> np.ndarray:
    return np.maximum(RTOL * np.abs(x), ATOL)


def _secant(xa, xb, fa, fb) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        xs = xa - fa * (xb - xa) / (fb - fa)
    xs = np.where(np.isfinite(xs), xs, 0.5 * (xa + xb))
    return np.clip(xs, xa, xb)


def _refine(prob: _Problem, xa, xb, fa, fb) -> np.ndarray:
    """Shrink brackets ``[xa, xb]`` (ΔTCO of opposite signs at the ends) around a root.

    Each round evaluates, for every unfinished root, the midpoint and two points just either
    side of the secant estimate (one model call for all): the bracket at least halves, and
    closes in one round when the secant is within tolerance (ΔTCO is linear in prices).
    """
    sa = np.sign(fa)
    for _ in range(MAX_ROUNDS):
        active = (xb - xa) > _tolerance(np.maximum(np.abs(xa), np.abs(xb)))
        if not active.any():
            break
        a_, b_, fa_, fb_ = xa[active], xb[active], fa[active], fb[active]
        xs = _secant(a_, b_, fa_, fb_)
        h = 0.25 * _tolerance(xs)
        pts = np.column_stack([0.5 * (a_ + b_), np.clip(xs - h, a_, b_), np.clip(xs + h, a_, b_)])
        fp = prob.deltas(pts.ravel()).reshape(pts.shape)
        x_all = np.column_stack([a_, pts, b_])
        f_all = np.column_stack([fa_, fp, fb_])
        order = np.argsort(x_all, axis=1, kind="stable")
        x_all = np.take_along_axis(x_all, order, axis=1)
        f_all = np.take_along_axis(f_all, order, axis=1)
        # first point (left to right) whose sign differs from the left end's: a zero or a flip
        k = np.argmax(np.sign(f_all) != sa[active, None], axis=1)
        rows = np.arange(k.size)
        new_b, new_fb = x_all[rows, k], f_all[rows, k]
        new_a, new_fa = x_all[rows, k - 1], f_all[rows, k - 1]
        zero = new_fb == 0
        xa[active] = np.where(zero, new_b, new_a)
        fa[active] = np.where(zero, 0.0, new_fa)
        xb[active], fb[active] = new_b, new_fb
    done = xa == xb
    return np.where(done, xa, _secant(xa, xb, np.where(done, 1.0, fa), np.where(done, -1.0, fb)))


def break_even(scenario: Scenario, fabric: str, parameter: str, lo: float | None = None,
               hi: float | None = None, applies_to: str | None = None, points: int = 257) -> BreakEven:
    """Values of ``parameter`` in ``[lo, hi]`` at which ``fabric`` and the baseline cost the same.

    ΔTCO is sampled on ``points`` values (geometric spacing when ``lo > 0`` and
    ``hi / lo > 50``, else linear; whole numbers only for ``nodes``); each sign change is
    refined on the model to a relative 1e-6 (absolute 1e-9) of the value. For ``nodes`` a
    root is the smallest node count at which the sign has flipped. ``lo``/``hi`` default to
    a window around the current value (see :class:`ParamInfo`). ``roots == []`` means the
    upgrade is cheaper (or dearer) across the whole window.

    >>> be = break_even(Scenario(), "ib-ndr-400", "electricity_price")
    >>> be.values.shape, len(be.roots) == len(be.direction)
    ((257,), True)
    """
    prob = _problem(scenario, fabric, parameter, applies_to)
    current = prob.current()
    # an edited catalog value may lie outside the solver's usual window: widen it to include it
    info = dataclasses.replace(prob.info, lo_bound=min(prob.info.lo_bound, current),
                               hi_bound=max(prob.info.hi_bound, current))
    if isinstance(points, bool) or not isinstance(points, int | np.integer) or not 2 <= points <= MAX_VALUES:
        raise RangeError(f"{parameter}: points must be a whole number from 2 to {MAX_VALUES:,}", "points", 2,
                         MAX_VALUES, points, "", parameter)
    dlo, dhi = _window(info, current)
    lo_, hi_ = _check_values(info, [dlo if lo is None else lo, dhi if hi is None else hi],
                            "lo and hi", whole=False)
    if info.integer:
        lo_, hi_ = float(math.ceil(lo_)), float(math.floor(hi_))
    if not lo_ < hi_:
        raise InputError(f"{parameter}: need lo < hi (got lo={lo_:g}, hi={hi_:g})", "lo", "lo < hi", parameter)
    grid = _grid(lo_, hi_, int(points), info.integer)
    both = prob.deltas(np.append(grid, current))
    deltas, current_delta = both[:-1], float(both[-1])

    a, b = _brackets(deltas)
    roots = np.empty(a.size)
    if info.integer:
        roots = _refine_integer(prob, grid[a].copy(), grid[b].copy(), np.sign(deltas[a]))
    elif a.size:
        exact = deltas[b] == 0
        roots[exact] = grid[b[exact]]
        todo = ~exact
        roots[todo] = _refine(prob, grid[a[todo]].copy(), grid[b[todo]].copy(),
                              deltas[a[todo]].copy(), deltas[b[todo]].copy())
    direction = [CHEAPER_ABOVE if s > 0 else CHEAPER_BELOW for s in np.sign(deltas[a])]
    return BreakEven(
        parameter=parameter, applies_to=prob.applies_to, current_value=current,
        current_delta=current_delta, values=_ro(grid), deltas=_ro(deltas),
        roots=[float(r) for r in roots], direction=direction, fabric=prob.fabric,
        baseline=prob.baseline, currency=prob.built.structure.currency, unit=info.unit,
        metric="tco_after_tax" if info.after_tax else "tco",
    )


__all__ = ["CHEAPER_ABOVE", "CHEAPER_BELOW", "PARAMETERS", "BreakEven", "ParamInfo", "break_even",
           "delta_curve"]
