"""Language defaults (``data/locale_defaults.yaml``): what a scenario starts from in each language.

English keeps the presets as they are. Chinese starts in China: the China-market CNY price book,
China's grid and tax regions and a CNY electricity price; every other money input is the English
default converted at the reference rate (a price book's currency is the currency of all the
scenario's money, so changing the book converts them all).

:func:`localize` turns an English default scenario into a language's defaults; :func:`follow`
moves a scenario from one language's defaults to another's while keeping what its user chose:
a field follows only while it still holds the old language's default, and the price book only
while no sales book or price edit rests on it (money inputs are then restated in the new
currency at the reference rate, so a user's own amounts keep their worth).

>>> from costmodel.scenario.presets import load_preset
>>> zh = localize(load_preset("seed-intro-32xA100"), "zh")
>>> zh.price_book, zh.facility.grid_region, zh.finance.tax_region, zh.facility.electricity_price_per_kwh
('cn-2025', 'cn', 'cn', 0.62)
>>> follow(zh, load_preset("seed-intro-32xA100"), "zh", "en") == load_preset("seed-intro-32xA100")
True
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from types import MappingProxyType

import yaml
from pydantic import ValidationError

from costmodel import quantities
from costmodel.catalog.cn_prices import round_sig
from costmodel.catalog.currency import is_money_unit, reference_rate
from costmodel.catalog.loader import DATA_DIR, Quantity, load_catalog
from costmodel.errors import CatalogError
from costmodel.scenario.schema import Scenario

DATA_FILE = DATA_DIR / "locale_defaults.yaml"
MONEY_DIGITS = 9  # a converted amount keeps 9 significant digits: USD → CNY → USD gives the amount back


@dataclass(frozen=True)
class LocaleDefaults:
    """One language's defaults: its price book and currency, plain fields and money fields (in ``currency``)."""

    price_book: str | None = None
    currency: str | None = None
    fields: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    money: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))

    def paths(self) -> set[str]:
        return set(self.fields) | set(self.money)


@functools.cache
def _file() -> dict:
    with DATA_FILE.open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=yaml.CSafeLoader) or {}


@functools.cache
def defaults(lang: str) -> LocaleDefaults:
    """The defaults of ``lang`` (none for a language the file does not list); checked against the catalog."""
    raw = _file().get(lang) or {}
    cat = load_catalog()
    try:
        money = {p: Quantity(**q) for p, q in (raw.get("money") or {}).items()}
        out = LocaleDefaults(raw.get("price_book"), raw.get("currency"),
                             MappingProxyType(dict(raw.get("fields") or {})), MappingProxyType(money))
    except (TypeError, ValidationError) as exc:
        raise CatalogError(f"{DATA_FILE.name}: {lang}: {exc}") from exc
    if out.price_book is not None and cat.price_book(out.price_book).currency != out.currency:
        raise CatalogError(f"{DATA_FILE.name}: {lang}: currency {out.currency!r} is not its price book's")
    unknown = [q.source for q in money.values() if q.source not in cat.references]
    if unknown:
        raise CatalogError(f"{DATA_FILE.name}: {lang}: unknown source keys {unknown}")
    return out


@functools.cache
def money_paths() -> tuple[str, ...]:
    """The scenario inputs that are amounts of money (their unit names ``currency``)."""
    return tuple(q.id for q in quantities.registry().values() if q.group == "scenario" and is_money_unit(q.unit))


def currency(scenario: Scenario) -> str:
    """The currency of ``scenario``'s money: its price book's."""
    return load_catalog().price_book(scenario.price_book).currency


def book_free(scenario: Scenario) -> bool:
    """Whether the scenario's price book may follow the language: no sales book and no price edits on it."""
    o = scenario.overrides
    return scenario.custom_price_book is None and not o.fabric_prices and not o.gpu_prices


def _get(doc: dict, path: str):
    for part in path.split("."):
        doc = doc[part]
    return doc


def _set(doc: dict, path: str, value) -> None:
    *head, last = path.split(".")
    for part in head:
        doc = doc[part]
    doc[last] = value


def _convert_money(doc: dict, rate: float) -> None:
    """Every money input of ``doc`` × ``rate`` (a change of currency)."""
    if rate == 1.0:
        return
    for path in money_paths():
        value = _get(doc, path)
        if value is not None:
            _set(doc, path, round_sig(value * rate, MONEY_DIGITS))


def _money_value(q: Quantity, from_currency: str | None, to_currency: str) -> float:
    rate = reference_rate(from_currency or to_currency, to_currency)
    return round_sig(q.typical * rate, MONEY_DIGITS)


def localize(base: Scenario, lang: str) -> Scenario:
    """``base`` (a preset or blank scenario, English defaults) with ``lang``'s defaults applied."""
    d = defaults(lang)
    if not d.paths() and d.price_book is None:
        return base
    doc = base.model_dump()
    if d.price_book is not None and book_free(base):
        doc["price_book"] = d.price_book
    cur = load_catalog().price_book(doc["price_book"]).currency
    _convert_money(doc, reference_rate(currency(base), cur))
    for path, value in d.fields.items():
        _set(doc, path, value)
    for path, q in d.money.items():
        _set(doc, path, _money_value(q, d.currency, cur))
    return Scenario.model_validate(doc)


def follow(scenario: Scenario, base: Scenario, old: str, new: str, keep: frozenset[str] = frozenset()) -> Scenario:
    """``scenario`` after a switch from language ``old`` to ``new``: each field that still holds
    ``old``'s default (of ``base``, the preset it came from) takes ``new``'s, unless its path is in
    ``keep`` (set by the user, even to that very value); the price book follows while
    :func:`book_free`, and then every money input is restated in its currency."""
    if old == new:
        return scenario
    was, will = localize(base, old), localize(base, new)
    doc = scenario.model_dump()
    if book_free(scenario) and scenario.price_book == was.price_book:
        doc["price_book"] = will.price_book
    cur = load_catalog().price_book(doc["price_book"]).currency
    _convert_money(doc, reference_rate(currency(scenario), cur))
    before, was_doc, will_doc = scenario.model_dump(), was.model_dump(), will.model_dump()
    for path in sorted(defaults(old).paths() | defaults(new).paths()):
        if path in keep or _get(before, path) != _get(was_doc, path):
            continue  # the user's own value (already restated in the new currency if money)
        value = _get(will_doc, path)
        if path in money_paths() and value is not None:
            value = round_sig(value * reference_rate(currency(will), cur), MONEY_DIGITS)
        _set(doc, path, value)
    return Scenario.model_validate(doc)


def restate(scenario: Scenario, book_id: str) -> Scenario:
    """``scenario`` on the published book ``book_id``, every amount it carries (money inputs, price
    edits, a sales book's explicit prices) restated in that book's currency at the reference rate.

    A sales book's explicit prices are in its base book's currency and the store does not record
    which: sales books are made on the public list, so the price-books page restates a scenario on
    it before applying one (a Chinese scenario's CNY amounts become USD of the same worth).
    """
    if scenario.price_book == book_id:
        return scenario
    doc = scenario.model_dump()
    doc["price_book"] = book_id
    rate = reference_rate(currency(scenario), load_catalog().price_book(book_id).currency)
    _convert_money(doc, rate)
    tables = [doc["overrides"]["fabric_prices"], doc["overrides"]["gpu_prices"]]
    if doc.get("custom_price_book"):
        tables += [doc["custom_price_book"]["gpus"], doc["custom_price_book"]["fabrics"]]
    for table in tables:
        for prices in table.values():
            prices.update({k: round_sig(v * rate, MONEY_DIGITS) for k, v in prices.items()})
    return Scenario.model_validate(doc)


def variants(base: Scenario) -> list[Scenario]:
    """``base`` as every language starts it (English first): what counts as "unchanged"."""
    out = [base]
    for lang in _file():
        v = localize(base, lang)
        if v not in out:
            out.append(v)
    return out
