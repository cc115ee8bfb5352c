"""The share link: a scenario as a preset id plus the compact JSON of what differs from it.

``encode(scenario, preset_id)`` → a URL-safe token (JSON → zlib → base64url);
``decode(preset_id, token)`` → a validated Scenario, or :class:`LinkError` with a message
naming what is wrong. Never pickle: the token is JSON, parsed with the model's own safe
parser (size, depth, NaN and duplicate-key limits) and validated against the schema.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib

import costmodel
from costmodel import price_books
from costmodel.errors import ScenarioError
from costmodel.validation import parse_document, validate_scenario

BLANK = "blank"
MAX_TOKEN_CHARS = 8_192
MAX_JSON_BYTES = 64 * 1024


class LinkError(ValueError):
    """A share link that cannot be used; the message says why."""


def preset_ids() -> list[str]:
    """The blank scenario first, then the article's cases."""
    return [BLANK, *costmodel.list_presets()]


def preset_scenario(preset_id: str) -> costmodel.Scenario:
    """The scenario a preset starts from (the blank one: schema defaults from defaults.yaml)."""
    if preset_id == BLANK:
        return costmodel.Scenario()
    return costmodel.load_preset(preset_id)


def diff(new: dict, base: dict) -> dict:
    """The parts of ``new`` that differ from ``base`` (nested dicts compared field by field)."""
    out = {}
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            sub = diff(value, base[key])
            if sub or (not value and base[key]):
                out[key] = sub if sub else value
        elif base.get(key, object()) != value or key not in base:
            out[key] = value
    return out


def merge(base: dict, changes: dict) -> dict:
    """``base`` with ``changes`` applied (nested dicts merged, everything else replaced)."""
    out = dict(base)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and key != "overrides":
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def encode(scenario: costmodel.Scenario, preset_id: str) -> str:
    """Token of the scenario's difference from the preset ('' when there is none).

    A link may reach anyone: a sales price book in the scenario travels only as the prices of the
    items it uses (:func:`costmodel.price_books.quote_only`), never as the book.
    """
    scenario = price_books.quote_only(scenario)
    changes = diff(scenario.model_dump(mode="json"), preset_scenario(preset_id).model_dump(mode="json"))
    if not changes:
        return ""
    raw = json.dumps(changes, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


def decode(preset_id: str, token: str | None) -> costmodel.Scenario:
    """The scenario a link describes; LinkError says what is wrong with a broken link."""
    if preset_id not in preset_ids():
        raise LinkError(f"unknown preset {preset_id[:40]!r}; allowed: {', '.join(preset_ids())}")
    base = preset_scenario(preset_id)
    if not token:
        return base
    if len(token) > MAX_TOKEN_CHARS:
        raise LinkError(f"the scenario in the link is longer than {MAX_TOKEN_CHARS:,} characters")
    try:
        packed = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_JSON_BYTES + 1)
        if len(raw) > MAX_JSON_BYTES or inflater.unconsumed_tail:
            raise LinkError(f"the scenario in the link unpacks to more than {MAX_JSON_BYTES:,} bytes")
        if not inflater.eof or inflater.unused_data:  # truncated or padded: the checksum was not met
            raise LinkError("the scenario in the link is damaged (not a valid token)")
    except (binascii.Error, ValueError, zlib.error) as exc:
        if isinstance(exc, LinkError):
            raise
        raise LinkError("the scenario in the link is damaged (not a valid token)") from None
    try:
        changes = parse_document(raw, "json")
        return validate_scenario(merge(base.model_dump(mode="json"), changes))
    except ScenarioError as exc:
        raise LinkError(f"the scenario in the link is invalid: {exc}") from None
