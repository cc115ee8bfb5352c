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

from costmodel.catalog.loader import Catalog, load_catalog, validation_context
from costmodel.errors import FieldError, ScenarioError, clean_text, plain_number, problem, problems_error
from costmodel.scenario import encodings
from costmodel.scenario.schema import DerivedPriceBook, Scenario

MAX_SCENARIO_BYTES = 256 * 1024
MAX_DEPTH = 8
_BOUND_WORDS = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<", "min_length": "length ≥",
                "max_length": "length ≤"}


class _NoAliasLoader(yaml.SafeLoader):
    """yaml.SafeLoader that refuses anchors and aliases."""

    def construct_mapping(self, node, deep=False):
        keys = [self.construct_object(k, deep=deep) for k, _ in node.value]
        dupes = {k for k in keys if keys.count(k) > 1}
        if dupes:
            raise _DuplicateKeyError(str(sorted(map(str, dupes))[0]))
        return super().construct_mapping(node, deep=deep)

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.constructor.ConstructorError(
                None, None, "YAML aliases are not allowed in a scenario", event.start_mark
            )
        return super().compose_node(parent, index)


MAX_INT_DIGITS = 30


def _nonfinite(token: str) -> float:
    """NaN/Infinity tokens become floats, so validation names the field that holds them."""
    return float(token)


def _int_or_inf(text: str) -> int | float:
    """Absurdly long integers become infinity (rejected by the field's bounds, with its name)."""
    return int(text) if len(text.lstrip("-")) <= MAX_INT_DIGITS else float("inf")


def _no_duplicates(pairs: list) -> dict:
    seen: dict = {}
    for key, value in pairs:
        if key in seen:
            raise _DuplicateKeyError(key)
        seen[key] = value
    return seen


class _DuplicateKeyError(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


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


def _model_of(ann) -> type[BaseModel] | None:
    """The pydantic model of an annotation ``M`` or ``M | None``, else None."""
    for cand in (ann, *getattr(ann, "__args__", ())):
        if isinstance(cand, type) and issubclass(cand, BaseModel):
            return cand
    return None


def _field_info(loc: tuple, root: type[BaseModel] = Scenario):
    """The pydantic FieldInfo at a location path of a ``root`` model (a Scenario), or None."""
    model: type[BaseModel] | None = root
    info = None
    for part in loc:
        if isinstance(part, int) or model is None:
            continue
        info = model.model_fields.get(part)
        if info is None:
            return None
        model = _model_of(info.annotation)
    return info


def field_bounds(path: str) -> tuple[float | None, float | None]:
    """Lower and upper bound of a dotted scenario field, e.g. ``cluster.nodes`` → (1, 100000)."""
    info = _field_info(tuple(path.split(".")))
    lo = hi = None
    for meta in info.metadata if info is not None else ():
        for attr in ("ge", "gt"):
            if getattr(meta, attr, None) is not None:
                lo = getattr(meta, attr)
        for attr in ("le", "lt"):
            if getattr(meta, attr, None) is not None:
                hi = getattr(meta, attr)
    return lo, hi


def _allowed(info, loc: tuple, catalog: Catalog) -> str:
    if info is None:
        return ""
    if loc and isinstance(loc[-1], int) and loc[0] == "fabrics":
        return f"allowed: a fabric id, one of {', '.join(catalog.fabrics)}"
    ann = info.annotation
    if ann is bool:
        return f"allowed: true or false ({info.description})"
    if _model_of(ann) is not None:
        return f"allowed: an object with fields {', '.join(_model_of(ann).model_fields)}"
    parts = []
    for meta in info.metadata:
        for attr, word in _BOUND_WORDS.items():
            val = getattr(meta, attr, None)
            if val is not None:
                parts.append(f"{word} {plain_number(float(val))}" if isinstance(val, (int, float)) else f"{word} {val}")
    args = getattr(ann, "__args__", None)
    if args and all(isinstance(a, str) for a in args):
        parts.append("one of " + ", ".join(repr(a) for a in args))
    text = " and ".join(parts)
    desc = info.description or ""
    if text and desc:
        return f"allowed: {text} ({desc})"
    return f"allowed: {text}" if text else (f"({desc})" if desc else "")


def _allowed_values(info, loc: tuple, catalog: Catalog) -> dict:
    """What :func:`_allowed` says, as data for a translated message: ``kind`` (``fabric``, ``bool``,
    ``object``, ``bounds``) with ``choices``, ``fields`` or ``bounds`` (``[op, number]`` pairs, op
    one of ``ge gt le lt min_length max_length``)."""
    if info is None:
        return {}
    if loc and isinstance(loc[-1], int) and loc[0] == "fabrics":
        return {"kind": "fabric", "choices": list(catalog.fabrics)}
    ann = info.annotation
    if ann is bool:
        return {"kind": "bool"}
    if _model_of(ann) is not None:
        return {"kind": "object", "fields": list(_model_of(ann).model_fields)}
    bounds = [[attr, getattr(meta, attr)] for meta in info.metadata for attr in _BOUND_WORDS
              if isinstance(getattr(meta, attr, None), int | float)]
    args = getattr(ann, "__args__", None)
    choices = list(args) if args and all(isinstance(a, str) for a in args) else []
    return {"kind": "bounds", "bounds": bounds, "choices": choices} if bounds or choices else {}


def _path(loc: tuple) -> str:
    out = ""
    for part in loc:
        part = part if isinstance(part, int) else clean_text(part, 40)
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def scenario_error(exc: ValidationError, root: type[BaseModel] = Scenario,
                   catalog: Catalog | None = None) -> ScenarioError:
    """Turn a pydantic ValidationError on a Scenario (or ``root``) into a ScenarioError with ranges
    (ids allowed: those of ``catalog``, default the packaged one)."""
    catalog = catalog or load_catalog()
    items = []
    for err in exc.errors(include_url=False):
        loc = tuple(err.get("loc", ()))
        msg = err.get("msg", "invalid")
        if err.get("type") == "extra_forbidden":
            parent = _field_info(loc[:-1], root) if len(loc) > 1 else None
            model = _model_of(parent.annotation) if parent is not None else root
            fields = list(getattr(model, "model_fields", {}))
            items.append(problem(_path(loc), f"unknown field; allowed fields here: {', '.join(fields)}",
                                 "unknown_field", fields=fields))
            continue
        own = (err.get("ctx") or {}).get("error")
        if isinstance(own, FieldError) and own.path.startswith(_path(loc)):
            # a model validator that already names the field and its allowed values, with a code
            items.append(problem(own.path, own.message, own.code, **own.values))
            continue
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, "):]
        info = _field_info(loc, root)
        allowed = _allowed(info, loc, catalog)
        got = err.get("input")
        shown = clean_text(repr(got) if not isinstance(got, dict | list) else type(got).__name__)
        items.append(problem(_path(loc), f"{msg} (got {shown}); {allowed}".rstrip("; "), "invalid",
                             type=str(err.get("type", "")), got=shown, allowed=_allowed_values(info, loc, catalog)))
    return problems_error(*items)


def parse_scenario_text(raw: bytes | str, fmt: str = "json", catalog: Catalog | None = None) -> Scenario:
    """Parse and validate scenario text (``fmt`` = ``"json"`` or ``"yaml"``) against ``catalog``."""
    return validate_scenario(parse_document(raw, fmt), catalog)


def validate_scenario(data: dict, catalog: Catalog | None = None) -> Scenario:
    """Validate a parsed mapping into a Scenario whose ids are those of ``catalog`` (default: the
    packaged one); ScenarioError names fields and ranges."""
    try:
        return Scenario.model_validate(data, context=validation_context(catalog))
    except ValidationError as exc:
        raise scenario_error(exc, catalog=catalog) from None


def validate_price_book(data: dict, catalog: Catalog | None = None) -> DerivedPriceBook:
    """Validate a parsed mapping into a derived price book (ids of ``catalog``, default the packaged
    one); ScenarioError names fields and ranges."""
    try:
        return DerivedPriceBook.model_validate(data, context=validation_context(catalog))
    except ValidationError as exc:
        raise scenario_error(exc, DerivedPriceBook, catalog) from None


def _is_broken(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _surrogate_path(doc) -> str | None:
    """Dotted path of the first key or string holding a lone surrogate ('' for the top), else None."""
    stack = [(doc, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, str) and _is_broken(node):
            return path
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            if isinstance(key, str) and _is_broken(key):
                return path or ""
            sub = f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else str(key))
            stack.append((value, sub))
    return None


def parse_document(raw: bytes | str, fmt: str = "json", what: str = "scenario") -> dict:
    """Parse untrusted JSON/YAML text (a ``what``) into a mapping, within the size, depth and syntax limits."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", errors="surrogatepass")
    if len(raw) > MAX_SCENARIO_BYTES:
        raise problems_error(problem("", f"the {what} is {len(raw):,} bytes; at most {MAX_SCENARIO_BYTES:,} bytes "
                                         "are accepted", "too_big", what=what, size=len(raw),
                                     max=MAX_SCENARIO_BYTES))
    try:  # UTF-8, UTF-16 or Chinese GBK, as Windows editors save (strict: never read as mojibake)
        text, _ = encodings.decode(raw)
    except UnicodeDecodeError as exc:
        raise problems_error(problem("", f"the {what} is not UTF-8, UTF-16 or GBK text (byte {exc.start}); save it "
                                     "as UTF-8 (Notepad: File › Save as, Encoding: UTF-8) and import it again",
                                     "not_utf8", what=what, byte=exc.start)) from None
    try:
        if fmt == "yaml":
            data = yaml.load(text, Loader=_NoAliasLoader)  # noqa: S506 - a yaml.SafeLoader subclass
        else:
            data = json.loads(text, parse_constant=_nonfinite, parse_int=_int_or_inf,
                              object_pairs_hook=_no_duplicates)
    except _DuplicateKeyError as exc:
        raise problems_error(problem(clean_text(exc.key, 40), "given twice in the same object; each field may "
                                     "appear once", "given_twice")) from None
    except RecursionError:
        raise problems_error(problem("", f"the {what} is nested too deeply (at most {MAX_DEPTH} levels)", "too_deep",
                                     what=what, max=MAX_DEPTH)) from None
    except json.JSONDecodeError as exc:
        raise problems_error(problem("", f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                                     "not_json", line=exc.lineno, column=exc.colno)) from None
    except ValueError as exc:
        raise problems_error(problem("", f"not valid {fmt.upper()}: {clean_text(str(exc), 120)}", "not_parsable",
                                     format=fmt.upper())) from None
    except yaml.YAMLError as exc:
        raise problems_error(problem("", f"not valid YAML: {str(exc).splitlines()[0]}", "not_parsable",
                                     format="YAML")) from None
    if not isinstance(data, dict):
        raise problems_error(problem("", f"a {what} must be an object with fields, got {type(data).__name__}",
                                     "not_object", what=what))
    if _depth(data, MAX_DEPTH) > MAX_DEPTH:
        raise problems_error(problem("", f"the {what} is nested deeper than {MAX_DEPTH} levels", "too_deep",
                                     what=what, max=MAX_DEPTH))
    where = _surrogate_path(data)
    if where is not None:  # "\ud800" is valid JSON but no character: refuse it before it reaches a page
        raise problems_error(problem(where, "contains an unpaired UTF-16 surrogate escape (such as \\ud800); "
                                            "use real characters", "surrogate"))
    return data
