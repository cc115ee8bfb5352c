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
