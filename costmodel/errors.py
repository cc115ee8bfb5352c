"""Named exceptions of the cost model, with messages a user can act on."""

from __future__ import annotations

import unicodedata

MAX_MESSAGE_CHARS = 2000
MAX_SHOWN_PROBLEMS = 5  # a message lists this many problems, then "and N more"
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})  # controls, invisible formatting, surrogates, line breaks


def clean_text(text: str, limit: int = 60) -> str:
    """User-supplied text made safe for a one-line message: no control, invisible or bidi
    characters, no lone surrogates, at most ``limit`` characters.

    >>> clean_text("a\\u202eb\\nc" + "x" * 100, 10)
    'a b cxxxx…'
    """
    text = str(text)[: limit + 1]
    text = "".join(" " if unicodedata.category(ch) in _HIDDEN else ch for ch in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class CostModelError(Exception):
    """Base class of every error the cost model raises on purpose."""


class CatalogError(CostModelError):
    """A catalog, price book, preset or defaults file is malformed (a packaging bug)."""


class ScenarioError(CostModelError):
    """A scenario is invalid. ``str(err)`` names the field path and the allowed range (English).

    Attributes
    ----------
    problems : list of (path, message) pairs, one per invalid field (the English text).
    details : list of ``{"path", "code", "values"}``, one per problem, for a user interface to
        translate: ``code`` names the kind of problem (``out_of_range``, ``unknown_field``,
        ``not_json`` …; ``text`` when only the English message is known, in ``values["text"]``)
        and ``values`` holds its parameters (the value given, bounds, choices, sizes).
    """

    def __init__(self, problems: list[tuple[str, str]], details: list[dict] | None = None):
        self.problems = problems
        if details is None or len(details) != len(problems):
            details = [{"path": path, "code": "text", "values": {"text": msg}} for path, msg in problems]
        self.details = details
        lines = [f"{path}: {msg}" if path else msg for path, msg in problems[:MAX_SHOWN_PROBLEMS]]
        if len(problems) > MAX_SHOWN_PROBLEMS:
            lines.append(f"and {len(problems) - MAX_SHOWN_PROBLEMS} more problems")
        text = " ".join("; ".join(lines).split())  # always one line
        super().__init__(text if len(text) <= MAX_MESSAGE_CHARS else text[: MAX_MESSAGE_CHARS - 1] + "…")


def problem(path: str, message: str, code: str = "text", **values) -> tuple[tuple[str, str], dict]:
    """One problem as its English ``(path, message)`` and its translatable detail."""
    return (path, message), {"path": path, "code": code, "values": values if code != "text" else {"text": message}}


def problems_error(*items: tuple[tuple[str, str], dict]) -> ScenarioError:
    """A ScenarioError of problems made with :func:`problem`."""
    return ScenarioError([p for p, _ in items], [d for _, d in items])


class InputError(CostModelError, ValueError):
    """An argument of a solver or a simulation (break-even, Monte Carlo, tornado) outside what is allowed.

    A :class:`ValueError` too, so callers that catch ``ValueError`` keep working. ``str(err)`` is the
    English message, naming the field and what is allowed.

    Attributes
    ----------
    field : the argument or input at fault (``parameter``, ``fabric``, ``draws``, an input's name …).
    allowed : what is allowed, in English (``"1 to 100,000"``, ``"one of tcp-100, roce-400"``).
    parameter : the break-even input the message is about (None outside the solver).
    """

    def __init__(self, message: str, field: str, allowed: str, parameter: str | None = None):
        super().__init__(message)
        self.field, self.allowed, self.parameter = field, allowed, parameter


class ChoiceError(InputError):
    """A name that is not one of the allowed ``choices`` (``got``: the name given)."""

    def __init__(self, message: str, field: str, choices, got=None, parameter: str | None = None):
        self.choices, self.got = [str(c) for c in choices], got
        super().__init__(message, field, "one of " + ", ".join(self.choices), parameter)


class RangeError(InputError):
    """A number (or a count of numbers) outside ``[lo, hi]`` (``unit`` of both; ``got``: the value given)."""

    def __init__(self, message: str, field: str, lo: float, hi: float, got=None, unit: str = "",
                 parameter: str | None = None):
        self.lo, self.hi, self.got, self.unit = lo, hi, got, unit
        allowed = f"{plain_number(lo)} to {plain_number(hi)}" + (f" {unit}" if unit else "")
        super().__init__(message, field, allowed, parameter)


def plain_number(x: float) -> str:
    """``100,000`` for whole numbers, ``0.5`` or ``1e-06`` otherwise (how refusals write a bound).

    >>> plain_number(1e6), plain_number(0.5), plain_number(1e-6)
    ('1,000,000', '0.5', '1e-06')
    """
    return f"{int(x):,}" if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


class CodedError(Exception):
    """An error whose message a user interface translates by ``code`` (with ``values``), not by its
    English text. ``str(err)`` is the English message; ``code`` None: only the English is known.

    The store's errors, broken share links and refused imports are coded where they are raised, so
    the app shows them in the page's language (``err.<code>`` of the app's texts).
    """

    def __init__(self, message: str = "", code: str | None = None, **values):
        super().__init__(message)
        self.code, self.values = code, values


class FieldError(ValueError):
    """A schema validator's refusal of the field at ``path`` (relative to the model validated):
    ``str(err)`` is ``"path: message"``; ``code`` and ``values`` are those of a
    :class:`ScenarioError` detail, so that the message is translated by code."""

    def __init__(self, path: str, message: str, code: str, **values):
        super().__init__(f"{path}: {message}")
        self.path, self.message, self.code, self.values = path, message, code, values


class NcclLogError(CodedError, ValueError):
    """A pasted or uploaded nccl-tests log that cannot be read or fitted (``costmodel.physics.nccl_tests``).

    ``str(err)`` is the English message: what was expected and what was found. ``code``
    (``nccl_log_…``) and ``values`` are for a user interface to translate; ``field`` is always
    ``nccl_log`` and ``allowed`` says, in English, what the field accepts.
    """

    def __init__(self, message: str, code: str, allowed: str, **values):
        super().__init__(message, code, **values)
        self.field, self.allowed = "nccl_log", allowed
