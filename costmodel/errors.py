"""Named exceptions of the cost model, with messages a user can act on."""

from __future__ import annotations

MAX_MESSAGE_CHARS = 2000


class CostModelError(Exception):
    """Base class of every error the cost model raises on purpose."""


class CatalogError(CostModelError):
    """A catalog, price book, preset or defaults file is malformed (a packaging bug)."""


class ScenarioError(CostModelError):
    """A scenario is invalid. ``str(err)`` names the field path and the allowed range.

    Attributes
    ----------
    problems : list of (path, message) pairs, one per invalid field.
    """

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        lines = [f"{path}: {msg}" if path else msg for path, msg in problems]
        text = " ".join("; ".join(lines).split())  # always one line
        super().__init__(text if len(text) <= MAX_MESSAGE_CHARS else text[: MAX_MESSAGE_CHARS - 1] + "…")
