"""Parsing untrusted scenario text into a :class:`Scenario`, with messages a user can act on.

Limits: at most ``MAX_SCENARIO_BYTES`` bytes, UTF-8, JSON (no NaN/Infinity tokens) or YAML
(safe loader, no aliases/anchors, so no "billion laughs"), nesting at most ``MAX_DEPTH``
levels. Every problem becomes a :class:`ScenarioError` whose message names the field path and
its allowed range.
"""

from __future__ import annotations

import json

import yaml
from pydantic import BaseModel, ValidationError

from .errors import ScenarioError
from .schema import Scenario

MAX_SCENARIO_BYTES = 256 * 1024
MAX_DEPTH = 8
_BOUND_WORDS = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<", "min_length": "length ≥",
                "max_length": "length ≤"}


class _NoAliasLoader(yaml.SafeLoader):
    """yaml.SafeLoader that refuses anchors and aliases."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.constructor.ConstructorError(
                None, None, "YAML aliases are not allowed in a scenario", event.start_mark
            )
        return super().compose_node(parent, index)


def _reject_constant(token: str):
    raise ValueError(f"{token} is not a number a scenario may hold")


def _depth(obj, limit: int) -> int:
    """Nesting depth of a parsed document (stops counting past ``limit``)."""
    stack = [(obj, 1)]
    deepest = 0
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        if deepest > limit:
            return deepest
        if isinstance(node, dict):
            stack.extend((v, level + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, level + 1) for v in node)
    return deepest


def _field_info(loc: tuple):
    """The pydantic FieldInfo at a location path of a Scenario, or None."""
    model: type[BaseModel] | None = Scenario
    info = None
    for part in loc:
        if isinstance(part, int) or model is None:
            continue
        info = model.model_fields.get(part)
        if info is None:
            return None
        ann = info.annotation
        model = ann if isinstance(ann, type) and issubclass(ann, BaseModel) else None
    return info


def _allowed(info) -> str:
    if info is None:
        return ""
    parts = []
    for meta in info.metadata:
        for attr, word in _BOUND_WORDS.items():
            val = getattr(meta, attr, None)
            if val is not None:
                parts.append(f"{word} {val:g}" if isinstance(val, (int, float)) else f"{word} {val}")
    ann = getattr(info.annotation, "__args__", None)
    if ann and all(isinstance(a, str) for a in ann):
        parts.append("one of " + ", ".join(repr(a) for a in ann))
    text = " and ".join(parts)
    desc = info.description or ""
    if text and desc:
        return f"allowed: {text} ({desc})"
    return f"allowed: {text}" if text else (f"({desc})" if desc else "")


def _path(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def scenario_error(exc: ValidationError) -> ScenarioError:
    """Turn a pydantic ValidationError on a Scenario into a ScenarioError with ranges."""
    problems = []
    for err in exc.errors(include_url=False):
        loc = tuple(err.get("loc", ()))
        msg = err.get("msg", "invalid")
        if err.get("type") == "extra_forbidden":
            parent = _field_info(loc[:-1]) if len(loc) > 1 else None
            model = parent.annotation if parent is not None else Scenario
            names = ", ".join(getattr(model, "model_fields", {}))
            problems.append((_path(loc), f"unknown field; allowed fields here: {names}"))
            continue
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, "):]
        if not loc and ": " in msg:
            path, _, msg = msg.partition(": ")
            problems.append((path, msg))
            continue
        allowed = _allowed(_field_info(loc))
        got = err.get("input")
        shown = repr(got) if not isinstance(got, (dict, list)) else type(got).__name__
        if len(shown) > 60:
            shown = shown[:57] + "..."
        problems.append((_path(loc), f"{msg} (got {shown}); {allowed}".rstrip("; ")))
    return ScenarioError(problems)


def parse_scenario_text(raw: bytes | str, fmt: str = "json") -> Scenario:
    """Parse and validate scenario text (``fmt`` = ``"json"`` or ``"yaml"``)."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", errors="surrogatepass")
    if len(raw) > MAX_SCENARIO_BYTES:
        raise ScenarioError([("", f"the scenario is {len(raw):,} bytes; at most "
                                  f"{MAX_SCENARIO_BYTES:,} bytes are accepted")])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError([("", f"the scenario is not UTF-8 text (byte {exc.start})")]) from None
    try:
        if fmt == "yaml":
            data = yaml.load(text, Loader=_NoAliasLoader)  # noqa: S506 - safe loader subclass
        else:
            data = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ScenarioError([("", f"the scenario is nested too deeply (at most {MAX_DEPTH} "
                                  "levels)")]) from None
    except json.JSONDecodeError as exc:
        raise ScenarioError([("", f"not valid JSON: {exc.msg} at line {exc.lineno} column "
                                  f"{exc.colno}")]) from None
    except ValueError as exc:
        raise ScenarioError([("", f"not valid JSON: {exc}")]) from None
    except yaml.YAMLError as exc:
        raise ScenarioError([("", f"not valid YAML: {str(exc).splitlines()[0]}")]) from None
    if not isinstance(data, dict):
        raise ScenarioError([("", f"a scenario must be an object with fields, got "
                                  f"{type(data).__name__}")])
    if _depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise ScenarioError([("", f"the scenario is nested deeper than {MAX_DEPTH} levels")])
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        raise scenario_error(exc) from None
