"""Translated texts built from model output: recommendation reasons, claims' explanations, chart
labels, names, and refusals (errors with codes from the model) naming the field by its label."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from costmodel.analysis import breakeven
from costmodel.catalog import formatting
from costmodel.catalog.loader import Reference, load_catalog
from costmodel.errors import (
    MAX_SHOWN_PROBLEMS,
    ChoiceError,
    CodedError,
    InputError,
    RangeError,
    ScenarioError,
    plain_number,
)
from costmodel.pipeline.tco import CATEGORIES
from webui.i18n.money import Money
from webui.i18n.translator import Translator, catalog


def fabric_names(t: Translator) -> dict[str, str]:
    """Display name of every catalog fabric in the current language
    (:func:`costmodel.catalog.formatting.fabric_names`)."""
    return formatting.fabric_names(t.lang)


def gpu_name(t: Translator, gpu: str) -> str:
    """Display name of catalog GPU ``gpu`` in the current language (its Chinese name where it has one)."""
    spec = load_catalog().gpus[gpu]
    return spec.name_zh if t.lang == "zh" and spec.name_zh else spec.name


def fabric_short_names(t: Translator) -> dict[str, str]:
    """Short label of every catalog fabric in the current language
    (:func:`costmodel.catalog.formatting.fabric_short_names`)."""
    return formatting.fabric_short_names(t.lang)


def reason(t: Translator, rc, money: Money) -> str:
    """One recommendation reason (a :class:`costmodel.pipeline.recommend.Reason`, or its ``{"code", "values"}``
    document) in the current language."""
    if not isinstance(rc, Mapping):
        rc = {"code": rc.code, "values": rc.values}
    values = dict(rc["values"])
    names = fabric_names(t)
    for key in ("best", "rule"):
        if key in values:
            values[key] = names.get(values[key], values[key])
    if "family" in values:
        values["family"] = t(f"family.{values['family']}")
    if "metric" in values:
        values["metric"] = t(f"metric.{values['metric']}")
    if "gap_value" in values:
        values["gap"] = money(values["gap_value"])
    if "diffs" in values:
        values["parts"] = t("claim_why.sep").join(f"{t(f'cat.{k}')} {money(v, signed=True)}"
                                                  for k, v in values["diffs"].items())
    for key in ("rule_days", "best_days"):
        if key in values:
            values[key] = float(values[key])
    if rc["code"].endswith("_params"):  # model sizes in billions; Chinese counts them in 亿 / 万亿
        for key in ("params", "small", "large"):
            if key in values:
                values[f"{key}_zh"] = _billions_zh(float(values[key]))
    return t(f"reason.{rc['code']}", **values)


def _billions_zh(billions: float) -> str:
    """A model size given in billions of parameters, in Chinese units.

    >>> _billions_zh(50), _billions_zh(5), _billions_zh(1000), _billions_zh(0.5)
    ('500 亿', '50 亿', '1 万亿', '5 亿')
    """
    yi = billions * 10
    return f"{yi / 10_000:g} 万亿" if yi >= 10_000 else f"{yi:g} 亿"


CHART_KEYS = (
    "breakdown_title", "axis_fabric", "axis_cost", "total", "cumulative_title", "axis_month",
    "axis_cumulative_cost", "month", "crossover", "waterfall_title", "increase", "decrease", "scale_title",
    "axis_nodes", "tco_total", "cost_per_run", "nodes", "delta_vs_baseline", "break_even", "delta_title",
    "axis_delta", "delta_curve", "root", "current", "tornado_title", "input_low", "input_high", "base_delta",
    "mc_title", "axis_tco", "axis_share_of_draws", "p10", "p50", "p90", "region_roce", "region_ib_preferred",
    "region_ib_only",
)


#: chart label key of a fabric's short label: ``short.<fabric id>`` (the full name is ``<fabric id>``)
SHORT_PREFIX = "short."


def chart_labels(t: Translator) -> dict[str, str]:
    """Every text a chart builder reads, translated: chart keys, categories, parameters, fabric
    names by id and their short labels (``short.<id>``), and ``_lang`` (Chinese charts count money
    in 万 / 亿). A new dict each call (callers may add to it), copied from the language's, which is
    built once."""
    return dict(_chart_labels(t.lang))


@functools.lru_cache(maxsize=8)
def _chart_labels(lang: str) -> dict[str, str]:
    t = Translator(lang)
    out = {key: t(f"chart.{key}") for key in CHART_KEYS}
    out.update({cat: t(f"cat.{cat}") for cat in CATEGORIES})
    out.update({k[len("param."):]: v for k, v in _params(t).items()})
    out.update(fabric_names(t))
    out.update({SHORT_PREFIX + fid: label for fid, label in fabric_short_names(t).items()})
    out["_lang"] = t.lang
    return out


def _params(t: Translator) -> dict[str, str]:
    keys = {k for k in catalog("en") if k.startswith("param.")}
    return {k: t(k) for k in keys}


def price_book_name(t: Translator, book_id: str) -> str:
    """The display name of a catalog price book (``public`` → "Public list prices 2025 (USD)" / 公开参考价…)."""
    try:
        book = load_catalog().price_book(book_id)
    except Exception:  # a sales book's id: its own name is shown by the caller
        return book_id
    return book.name_zh if t.lang == "zh" and book.name_zh else book.name


def base_book_name(t: Translator, scenario) -> str:
    """The sidebar's name of a scenario's published book: "public list prices", or the book's own name."""
    return t("app.public_prices") if scenario.price_book == "public" else price_book_name(t, scenario.price_book)


def reference_title(t: Translator, ref: Reference) -> str:
    """A source's description in the page's language: ``title_zh`` in Chinese (the English ``title``
    when a reference has none), ``title`` otherwise."""
    return ref.title_zh if t.lang == "zh" and ref.title_zh else ref.title


def claim_why(t: Translator, parts: list[dict]) -> str:
    """A claim's explanation (``ClaimCheck.why``: parts ``{"code", "values"}``) in the current language.

    Fabric ids become display names, categories and scopes their translations, ``*_cny`` amounts
    and the ``diffs`` by category money in CNY (万 / 亿 in Chinese).
    """
    names = fabric_names(t)
    cny = Money("CNY", "CNY", 1.0, t.lang)
    out = []
    for part in parts:
        values = dict(part["values"])
        for key in ("fabric", "base"):
            if key in values:
                values[key] = names.get(values[key], values[key])
        for key, amount in part["values"].items():
            if key.endswith("_cny"):
                values[key[: -len("_cny")]] = cny(amount)
        if "scope" in values:
            values["scope"] = t(f"opt.scope.{values['scope']}")
        if "price_book" in values:
            values["price_book"] = price_book_name(t, values["price_book"])
        if "diffs" in values:
            values["parts"] = t("claim_why.sep").join(
                f"{t(f'cat.{k}')} {cny.short(v) if v < 0 else '+' + cny.short(v)}" for k, v in values["diffs"].items())
        out.append(t(f"claim_why.{part['code']}", **values))
    return "".join(out)


# ---------------------------------------------------------------------------- error messages

_OPS = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}


def _number(value) -> str:
    """A bound or size: ``100,000``, ``0.5``, ``1e+09``."""
    try:
        v = float(str(value).replace(",", ""))
    except ValueError:
        return str(value)
    return f"{int(v):,}" if v.is_integer() and abs(v) < 1e15 else f"{v:g}"


def field_label(t: Translator, path: str) -> str:
    """The label people see for a scenario or price-book field path (the path itself when it has none).

    ``cluster.nodes`` → "Nodes (GPU servers)"; ``overrides.fabric_prices.ib-ndr-400.nic_price`` →
    "NIC price (InfiniBand NDR 400 Gb/s)"; ``discounts.nics`` → "NICs".
    """
    plain = re.sub(r"\[\d+\]", "", path)
    if t.has(f"field.{plain}"):
        return t(f"field.{plain}")
    parts = plain.split(".")
    names = fabric_names(t)
    gpus = load_catalog().gpus
    items = [names.get(p) or (gpus[p].name if p in gpus else None) for p in parts]
    item = next((i for i in items if i), None)
    last = parts[-1]
    if len(parts) > 1 and parts[-2] == "discounts" and t.has(f"pb.cat.{last}"):
        return t("err.discount_field", category=t(f"pb.cat.{last}"))
    for prefix in ("q", "param", "pb.cat"):
        if t.has(f"{prefix}.{last}"):
            return f"{t(f'{prefix}.{last}')} ({item})" if item and t.lang != "zh" else (
                f"{t(f'{prefix}.{last}')}（{item}）" if item else t(f"{prefix}.{last}"))
    return path


def _allowed(t: Translator, allowed: dict) -> str:
    kind = allowed.get("kind")
    if kind == "fabric":
        names = fabric_names(t)
        return t("err.allowed_one_of", choices=t("claim_why.sep").join(names.get(c, c) for c in allowed["choices"]))
    if kind == "bool":
        return t("err.allowed_bool")
    if kind == "object":
        return t("err.allowed_object", fields=", ".join(allowed["fields"]))
    parts = []
    for op, value in allowed.get("bounds", []):
        parts.append(f"{_OPS[op]} {_number(value)}" if op in _OPS else t(f"err.{op}", n=_number(value)))
    if allowed.get("choices"):
        parts.append(t("err.one_of", choices=", ".join(allowed["choices"])))
    return t("err.allowed", text=t("err.and").join(parts)) if parts else ""


def problem_text(t: Translator, detail: dict) -> str:
    """One problem of a :class:`~costmodel.errors.ScenarioError` (``details`` item) in the current language."""
    code, values, path = detail["code"], dict(detail["values"]), detail.get("path", "")
    if code == "text":  # only the English is known
        body = values["text"]
    elif code == "invalid":
        body = t.get(f"err.type.{values['type']}", t("err.type.default"))
        body += t("err.got", got=values["got"])
        allowed = _allowed(t, values.get("allowed") or {})
        body += (t("claim_why.sep") if t.lang == "zh" else "; ") + allowed if allowed else ""
    else:
        if "what" in values:
            values["what"] = t(f"err.what.{values['what'].replace(' ', '_')}")
        for key in ("lo", "hi", "max", "size"):
            if key in values:
                values[key] = _number(values[key])
        if "fields" in values:
            values["fields"] = ", ".join(values["fields"])
        body = t(f"err.{code}", **values)
    if not path:
        return body
    # a key the user wrote that the schema does not know is shown as written
    field = path if code in ("unknown_field", "given_twice", "surrogate") else field_label(t, path)
    return t("err.field", field=field, problem=body)


def _scenario_error(exc: BaseException) -> ScenarioError | None:
    """``exc`` itself or the ScenarioError it was raised from (``raise … from None`` keeps the context)."""
    seen = 0
    while exc is not None and seen < 5:
        if isinstance(exc, ScenarioError):
            return exc
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


def _input_name(t: Translator, exc: InputError) -> str:
    """The label of the solver's or simulation's argument at fault (a break-even input, the fabric, the draws)."""
    field = exc.parameter if exc.parameter in breakeven.PARAMETERS and exc.field not in ("fabric", "applies_to") \
        else exc.field
    return t(f"risk.{field}") if t.has(f"risk.{field}") else field_label(t, field)


def error_text(t: Translator, exc: BaseException | str) -> str:
    """A refusal (ScenarioError, an import refused by the store, a broken link, a solver input) in the
    current language, naming the field by its label and the allowed range; translated by the error's
    code (:class:`~costmodel.errors.CodedError`, ScenarioError details, the solver's
    :class:`~costmodel.errors.InputError`), never by matching its English text. Plain text: escape it
    before Markdown. English pages show the model's own English message, unchanged."""
    if t.lang == "en" or not isinstance(exc, BaseException):
        return str(exc)
    code = exc.code if isinstance(exc, CodedError) else None
    if code is not None and code != "link_invalid":
        return problem_text(t, {"code": code, "values": dict(exc.values), "path": ""})
    se = _scenario_error(exc)  # the error itself, or the one a link or an import was refused for
    if se is not None:
        shown = [problem_text(t, d) for d in se.details[:MAX_SHOWN_PROBLEMS]]
        if len(se.details) > MAX_SHOWN_PROBLEMS:
            shown.append(t("err.more", n=len(se.details) - MAX_SHOWN_PROBLEMS))
        body = t("err.sep").join(shown)
        return t("err.link_invalid", error=body) if code == "link_invalid" else body
    if isinstance(exc, RangeError):  # a solver's or a simulation's number out of its range
        return t("err.input_range", field=_input_name(t, exc), lo=plain_number(exc.lo), hi=plain_number(exc.hi),
                 unit=t.get(f"unit.{exc.unit}", exc.unit) if exc.unit else "").rstrip()
    if isinstance(exc, ChoiceError):
        names = fabric_names(t) if exc.field in ("fabric", "applies_to") else {}
        choices = ", ".join(names.get(c, c) for c in exc.choices[:12])
        return t("err.input_choice", field=_input_name(t, exc), choices=choices)
    if isinstance(exc, InputError) and exc.parameter in breakeven.PARAMETERS:  # the break-even solver's refusals
        return t("err.solver", field=field_label(t, exc.parameter))
    return str(exc)
