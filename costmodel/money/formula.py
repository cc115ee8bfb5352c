"""Formulas as small expression trees: evaluated with numpy by the model, written out for Excel.

A formula is built from :class:`Name` leaves (an input or an earlier result), numbers and the
operators ``+ - * /`` and unary ``-``, plus the functions :func:`IF`, :func:`MIN`, :func:`MAX`,
:func:`PMT` and the comparisons :func:`gt` and :func:`eq`. :meth:`Expr.evaluate` computes it on
arrays (operations in the order written, so the model's floating-point results do not depend on
how a formula is printed); :meth:`Expr.excel` prints it as an Excel/LibreOffice formula, names
replaced by cell references and sub-expressions without references folded to numbers.

>>> x = Name("x")
>>> f = IF(gt(x, 1), 2 * x, MIN(x, 0.5)) - 1
>>> f.evaluate({"x": np.array([0.2, 3.0])}).tolist()
[-0.8, 5.0]
>>> f.excel({"x": "in_x"})
'IF(in_x>1,2*in_x,MIN(in_x,0.5))-1'
>>> (Name("m") - 12 * (Name("year") - 1)).excel({"m": "M"}, {"year": 3})
'M-24'
>>> (Name("a") * IF(eq(Name("year"), 0), 1, 0) + IF(gt(Name("year"), 2), -Name("r"), 0)).excel(
...     {"a": "A", "r": "R"}, {"year": 0})
'A'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy_financial as npf

_NEGATED = 3  # rank of a negated operand or a negative number
_PRECEDENCE = {">": 0, "=": 0, "+": 1, "-": 1, "*": 2, "/": 2}
_NUMPY_OPS = {
    "+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide,
    ">": np.greater, "=": np.equal,
}


def _wrap(x) -> Expr:
    return x if isinstance(x, Expr) else Num(float(x))


class Expr:
    """A formula node; combine with ``+ - * /`` and the functions of this module."""

    def __add__(self, other) -> Expr:
        return Op("+", self, _wrap(other))

    def __radd__(self, other) -> Expr:
        return Op("+", _wrap(other), self)

    def __sub__(self, other) -> Expr:
        return Op("-", self, _wrap(other))

    def __rsub__(self, other) -> Expr:
        return Op("-", _wrap(other), self)

    def __mul__(self, other) -> Expr:
        return Op("*", self, _wrap(other))

    def __rmul__(self, other) -> Expr:
        return Op("*", _wrap(other), self)

    def __truediv__(self, other) -> Expr:
        return Op("/", self, _wrap(other))

    def __rtruediv__(self, other) -> Expr:
        return Op("/", _wrap(other), self)

    def __neg__(self) -> Expr:
        return Neg(self)

    def names(self) -> set[str]:
        """Every name the formula reads."""
        raise NotImplementedError

    def evaluate(self, env: Mapping[str, np.ndarray | float]):
        """The formula's value with every name looked up in ``env`` (arrays broadcast)."""
        raise NotImplementedError

    def render(self, refs: Mapping[str, str], consts: Mapping[str, float]) -> tuple[str, int]:
        """Excel text and the precedence of its outermost operator (9: needs no parentheses)."""
        raise NotImplementedError

    def excel(self, refs: Mapping[str, str], consts: Mapping[str, float] | None = None) -> str:
        """The formula as Excel text (without ``=``): names in ``refs`` become those references,
        names in ``consts`` numbers; parts that read no reference are folded to one number."""
        return self._out(refs, dict(consts or {}))[0]

    def _out(self, refs, consts) -> tuple[str, int]:
        if not (self.names() - consts.keys()):
            v = float(self.evaluate(consts))
            return _number(v), (_NEGATED if v < 0 else 9)
        return self.render(refs, consts)


def _number(v: float) -> str:
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v).upper()  # shortest text that reads back as the same float


@dataclass(frozen=True, eq=False)
class Num(Expr):
    """A number."""

    value: float

    def names(self) -> set[str]:
        return set()

    def evaluate(self, env):
        return self.value

    def render(self, refs, consts) -> tuple[str, int]:
        return _number(self.value), (_NEGATED if self.value < 0 else 9)


@dataclass(frozen=True, eq=False)
class Name(Expr):
    """An input or an earlier result, looked up by name."""

    name: str

    def names(self) -> set[str]:
        return {self.name}

    def evaluate(self, env):
        return env[self.name]

    def render(self, refs, consts) -> tuple[str, int]:
        return refs[self.name], 9


@dataclass(frozen=True, eq=False)
class Op(Expr):
    """A binary operation ``a <op> b``."""

    op: str
    a: Expr
    b: Expr

    def names(self) -> set[str]:
        return self.a.names() | self.b.names()

    def evaluate(self, env):
        return _NUMPY_OPS[self.op](self.a.evaluate(env), self.b.evaluate(env))

    def render(self, refs, consts) -> tuple[str, int]:
        mine = _PRECEDENCE[self.op]
        a, pa = self.a._out(refs, consts)
        b, pb = self.b._out(refs, consts)
        if (self.op in "+-" and b == "0") or (self.op in "*/" and b == "1"):
            return a, pa  # x+0, x-0, x*1, x/1: the same number, a shorter formula
        if (self.op == "+" and a == "0") or (self.op == "*" and a == "1"):
            return b, pb
        if self.op == "+" and pb == _NEGATED:
            return f"{a if pa >= mine else f'({a})'}-{b[1:]}", mine  # a+-b is a-b
        # operands in the order numpy evaluates them: a right operand of equal rank keeps its
        # parentheses, so the spreadsheet rounds exactly as the model does
        a = a if pa >= mine else f"({a})"
        b = b if pb > mine and pb != _NEGATED else f"({b})"  # a*(-b), not a*-b
        return a + self.op + b, mine


@dataclass(frozen=True, eq=False)
class Neg(Expr):
    """``-a``."""

    a: Expr

    def names(self) -> set[str]:
        return self.a.names()

    def evaluate(self, env):
        return np.negative(self.a.evaluate(env))

    def render(self, refs, consts) -> tuple[str, int]:
        inner, p = self.a._out(refs, consts)
        return "-" + (inner if p == 9 else f"({inner})"), _NEGATED


@dataclass(frozen=True, eq=False)
class Call(Expr):
    """A spreadsheet function: ``IF``, ``MIN``, ``MAX`` or ``PMT``."""

    fn: str
    args: tuple[Expr, ...]

    def names(self) -> set[str]:
        return set().union(*(a.names() for a in self.args))

    def evaluate(self, env):
        v = [a.evaluate(env) for a in self.args]
        if self.fn == "IF":
            return np.where(v[0], v[1], v[2])
        if self.fn == "MIN":
            return np.minimum(v[0], v[1])
        if self.fn == "MAX":
            return np.maximum(v[0], v[1])
        with np.errstate(divide="ignore", invalid="ignore"):  # the branch IF() discards
            return npf.pmt(v[0], v[1], v[2])

    def render(self, refs, consts) -> tuple[str, int]:
        if self.fn == "IF" and not (self.args[0].names() - consts.keys()):
            taken = self.args[1] if bool(self.args[0].evaluate(consts)) else self.args[2]
            return taken._out(refs, consts)
        return f"{self.fn}(" + ",".join(a._out(refs, consts)[0] for a in self.args) + ")", 9


def IF(cond, then, otherwise) -> Expr:  # noqa: N802 - spreadsheet name
    """``then`` where ``cond`` holds, else ``otherwise`` (``np.where``; Excel ``IF``)."""
    return Call("IF", (_wrap(cond), _wrap(then), _wrap(otherwise)))


def MIN(a, b) -> Expr:  # noqa: N802
    """Element-wise minimum of two values."""
    return Call("MIN", (_wrap(a), _wrap(b)))


def MAX(a, b) -> Expr:  # noqa: N802
    """Element-wise maximum of two values."""
    return Call("MAX", (_wrap(a), _wrap(b)))


def PMT(rate, periods, present_value) -> Expr:  # noqa: N802
    """Payment per period of an annuity (``numpy_financial.pmt``; Excel ``PMT``), negative for a
    positive ``present_value``."""
    return Call("PMT", (_wrap(rate), _wrap(periods), _wrap(present_value)))


def gt(a, b) -> Expr:
    """``a > b``."""
    return Op(">", _wrap(a), _wrap(b))


def eq(a, b) -> Expr:
    """``a = b``."""
    return Op("=", _wrap(a), _wrap(b))
