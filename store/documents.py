"""Import and export of scenarios and price books as JSON files (untrusted input on import).

An import is parsed within the model's limits (size, depth, duplicate keys, NaN/Infinity,
UTF-8) and validated against the schema before anything else sees it; a refused file raises
:class:`ImportRejected` naming the field and its allowed range, and changes nothing.

An exported scenario carries ``"format": N`` (:mod:`costmodel.scenario.formats`); an import of any earlier
format (format 1: no marker, every file exported before formats existed) is migrated first.
"""

from __future__ import annotations

import json

from costmodel.errors import ScenarioError
from costmodel.scenario import formats
from costmodel.scenario.schema import DerivedPriceBook, Scenario
from costmodel.scenario.validation import MAX_SCENARIO_BYTES, parse_document, validate_price_book, validate_scenario

from .errors import ImportRejected

MAX_IMPORT_BYTES = MAX_SCENARIO_BYTES  # 256 KiB: a scenario with every override is < 20 KiB


def _read(data: bytes | bytearray, what: str) -> dict:
    if not isinstance(data, bytes | bytearray):
        raise ImportRejected(f"the {what} file could not be read", "file_unreadable", what=what)
    if len(data) > MAX_IMPORT_BYTES:
        raise ImportRejected(f"the {what} file is {len(data):,} bytes; at most {MAX_IMPORT_BYTES:,} bytes are accepted",
                             "file_too_big", what=what, size=len(data), max=MAX_IMPORT_BYTES)
    if not data.strip():
        raise ImportRejected(f"the {what} file is empty", "file_empty", what=what)
    try:
        return parse_document(bytes(data), "json", what=what)
    except ScenarioError as exc:
        raise ImportRejected(str(exc)) from None


def read_scenario(data: bytes) -> tuple[Scenario, int]:
    """(scenario, the format the file was in) from an uploaded JSON file, migrated to the current
    format and validated; raises :class:`ImportRejected`."""
    doc = _read(data, "scenario")
    try:
        current, version = formats.upgrade(doc)
        return validate_scenario(current), version
    except ScenarioError as exc:
        raise ImportRejected(str(exc)) from None


def import_scenario(data: bytes) -> Scenario:
    """A scenario from an uploaded JSON file of any format, validated; raises :class:`ImportRejected`."""
    return read_scenario(data)[0]


def import_price_book(data: bytes) -> DerivedPriceBook:
    """A price book from an uploaded JSON file, validated, with its store id dropped (saved as new)."""
    doc = _read(data, "price book")
    try:
        book = validate_price_book(doc)
    except ScenarioError as exc:
        raise ImportRejected(str(exc)) from None
    return book.model_copy(update={"id": ""})


def export_scenario(scenario: Scenario) -> bytes:
    """A scenario as an indented UTF-8 JSON file with its format, that :func:`import_scenario` reads back."""
    return json.dumps(formats.mark(scenario.model_dump(mode="json")), indent=2, ensure_ascii=False).encode("utf-8")


def export_price_book(book: DerivedPriceBook) -> bytes:
    """A price book as an indented UTF-8 JSON file (without its store id)."""
    doc = book.model_dump(mode="json")
    doc.pop("id", None)
    return json.dumps(doc, indent=2, ensure_ascii=False).encode("utf-8")
