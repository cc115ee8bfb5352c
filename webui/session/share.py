"""The share link: a scenario as a preset id plus the compact JSON of what differs from it.

``encode(scenario, preset_id)`` → a URL-safe token ``"<format>." + base64url(zlib(JSON))``;
``decode(preset_id, token)`` → a validated Scenario, or :class:`LinkError` with a message
naming what is wrong. Never pickle: the token is JSON, parsed with the model's own safe
parser (size, depth, NaN and duplicate-key limits) and validated against the schema.

Format versions (:mod:`costmodel.scenario.formats`): the difference is taken from the preset document
*frozen for the token's format* (``costmodel/data/formats/v<N>.json``), not from today's preset,
and the merged document is migrated to the current format before validation, so a link keeps
meaning what it meant when it was made. A token without a prefix (and ``?p=`` without a token)
is format 1, every link made before formats existed. New tokens always carry their format, even
when nothing differs from the preset.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib

import costmodel
from costmodel.errors import CodedError, ScenarioError
from costmodel.scenario import formats, price_books
from costmodel.scenario.validation import parse_document, validate_scenario

BLANK = "blank"
MAX_TOKEN_CHARS = 8_192
MAX_JSON_BYTES = 64 * 1024


class LinkError(CodedError, ValueError):
    """A share link that cannot be used; the message says why, the ``code`` (``link_…``) what to translate."""


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


def _pack(changes: dict) -> str:
    raw = json.dumps(changes, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


def encode(scenario: costmodel.Scenario, preset_id: str) -> str:
    """Token ``"<format>.<packed difference>"`` of the scenario from the preset's frozen document.

    A link may reach anyone: a sales price book in the scenario travels only as the prices of the
    items it uses (:func:`costmodel.scenario.price_books.quote_only`), never as the book.
    """
    scenario = price_books.quote_only(scenario)
    base = formats.bases(formats.CURRENT).get(preset_id)
    if base is None:
        raise LinkError(f"unknown preset {preset_id[:40]!r}; allowed: {', '.join(preset_ids())}",
                        "link_unknown_preset", got=repr(preset_id[:40]), choices=", ".join(preset_ids()))
    return f"{formats.CURRENT}.{_pack(diff(scenario.model_dump(mode='json'), base))}"


def _split(token: str) -> tuple[int, str]:
    """(format, packed body) of a token; no ``<N>.`` prefix = format 1."""
    if "." not in token:
        return formats.FIRST, token
    prefix, _, body = token.partition(".")
    if not prefix.isdigit() or len(prefix) > 4 or not formats.FIRST <= int(prefix) <= formats.CURRENT:
        raise LinkError(f"the link was made by another version of the planner (format {prefix[:8]!r}); "
                        f"this one reads formats {formats.FIRST} to {formats.CURRENT}", "link_other_version",
                        got=repr(prefix[:8]), lo=formats.FIRST, hi=formats.CURRENT)
    return int(prefix), body


def token_format(token: str | None) -> int:
    """The format a link's token was written in (no token or no ``<N>.`` prefix: format 1); LinkError if unknown."""
    return _split(token or "")[0]


def _unpack(body: str) -> dict:
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_JSON_BYTES + 1)
        if len(raw) > MAX_JSON_BYTES or inflater.unconsumed_tail:
            raise LinkError(f"the scenario in the link unpacks to more than {MAX_JSON_BYTES:,} bytes", "link_too_big",
                            max=MAX_JSON_BYTES)
        if not inflater.eof or inflater.unused_data:  # truncated or padded: the checksum was not met
            raise LinkError("the scenario in the link is damaged (not a valid token)", "link_damaged")
    except (binascii.Error, ValueError, zlib.error) as exc:
        if isinstance(exc, LinkError):
            raise
        raise LinkError("the scenario in the link is damaged (not a valid token)", "link_damaged") from None
    try:
        return parse_document(raw, "json")
    except ScenarioError as exc:
        raise LinkError(f"the scenario in the link is invalid: {exc}", "link_invalid") from None


def decode(preset_id: str, token: str | None) -> costmodel.Scenario:
    """The scenario a link describes, as it was when the link was made (migrated to the current
    format); LinkError says what is wrong with a broken link."""
    token = token or ""
    if len(token) > MAX_TOKEN_CHARS:
        raise LinkError(f"the scenario in the link has {len(token):,} characters, more than the {MAX_TOKEN_CHARS:,} "
                        "a link may carry; save the scenario as a file on the Scenarios page and import it there",
                        "link_too_long", size=len(token), max=MAX_TOKEN_CHARS)
    version, body = _split(token)
    frozen = formats.bases(version)
    if preset_id not in frozen and "." not in token:  # no format: a typed link to a preset newer than format 1
        version = next((v for v in range(version, formats.CURRENT + 1) if preset_id in formats.bases(v)), version)
        frozen = formats.bases(version)
    if preset_id not in frozen:
        known = sorted(formats.bases(formats.CURRENT) if "." not in token else frozen)
        raise LinkError(f"unknown preset {preset_id[:40]!r}; allowed: {', '.join(known)}", "link_unknown_preset",
                        got=repr(preset_id[:40]), choices=", ".join(known))
    changes = _unpack(body) if body else {}
    try:
        doc, _ = formats.upgrade(merge(frozen[preset_id], changes), version=version)
        return validate_scenario(doc)
    except ScenarioError as exc:
        raise LinkError(f"the scenario in the link is invalid: {exc}", "link_invalid") from None
