"""Derived (sales) price books: the public list with % discounts by category and explicit prices.

A :class:`~costmodel.scenario.schema.DerivedPriceBook` travels inside the scenario, so a saved version,
a share link and every export carry exactly the prices its results were computed with.
"""

from __future__ import annotations

from costmodel.catalog.loader import Catalog, PriceBook, Quantity, load_catalog
from costmodel.scenario.schema import DISCOUNT_CATEGORIES, DerivedPriceBook, Scenario

_CATEGORY_OF = {field: cat for cat, fields in DISCOUNT_CATEGORIES.items() for field in fields}
SALES_BASE = "public"  # the book sales books are made on: their explicit prices are in its currency
SOURCE = "price-book"  # reference key of every price a derived book sets


def _price(q: Quantity, field: str, book: DerivedPriceBook, explicit: dict[str, float], as_of: str) -> Quantity:
    """One price of the derived book: explicit value, else the base price less its category's discount."""
    if field in explicit:
        return q.model_copy(update={"typical": explicit[field], "low": None, "high": None, "source": SOURCE,
                                    "as_of": as_of, "note": f"negotiated price of {book.name!r}"})
    pct = book.discounts.get(_CATEGORY_OF.get(field, ""), 0.0)
    if not pct:
        return q
    f = 1.0 - pct / 100.0
    return q.model_copy(update={
        "typical": q.typical * f,
        "low": None if q.low is None else q.low * f,
        "high": None if q.high is None else q.high * f,
        "source": SOURCE, "as_of": as_of,
        "note": f"{pct:g} % {_CATEGORY_OF[field]} discount of {book.name!r} on {q.source}",
    })


def derive(base: PriceBook, book: DerivedPriceBook, as_of: str | None = None) -> PriceBook:
    """The full price book ``book`` describes on top of ``base`` (same currency and items).

    >>> from costmodel.scenario.schema import DerivedPriceBook
    >>> pub = load_catalog().price_book("public")
    >>> b = derive(pub, DerivedPriceBook(name="Q4", discounts={"switches": 20.0}))
    >>> b.fabrics["roce-200"].switch_price.typical == 0.8 * pub.fabrics["roce-200"].switch_price.typical
    True
    """
    stamp = as_of or base.as_of

    def item(prices, explicit):
        return prices.model_copy(update={
            name: _price(getattr(prices, name), name, book, explicit or {}, stamp)
            for name in type(prices).model_fields
        })

    return base.model_copy(update={
        "id": book.id.lower()[:64] if book.id else base.id,
        "name": book.name, "name_zh": book.name,
        "gpus": {gid: item(p, book.gpus.get(gid)) for gid, p in base.gpus.items()},
        "fabrics": {fid: item(p, book.fabrics.get(fid)) for fid, p in base.fabrics.items()},
    })


def for_scenario(scenario: Scenario, catalog: Catalog | None = None) -> PriceBook:
    """The price book a scenario is computed with (its base book, or the derived one on top)."""
    cat = catalog or load_catalog()
    base = cat.price_book(scenario.price_book)
    if scenario.custom_price_book is None:
        return base
    return derive(base, scenario.custom_price_book)


def label(scenario: Scenario) -> str:
    """The price book's name for result pages: the derived book's name, else the base book's id."""
    if scenario.custom_price_book is not None:
        return scenario.custom_price_book.name
    return scenario.price_book


QUOTE_NAME = "negotiated prices"  # what a customer sees instead of the book's own name


def quote_only(scenario: Scenario, catalog: Catalog | None = None) -> Scenario:
    """The scenario as a customer may see it: a derived book is replaced by the resolved prices of
    the items this scenario uses (its GPU, its fabrics) — no discounts, other items, name or id.

    Every result of the scenario stays the same (the prices are the ones it was computed with);
    only their uncertainty ranges collapse. A scenario on a published book is returned unchanged.
    """
    if scenario.custom_price_book is None:
        return scenario
    book = for_scenario(scenario, catalog)
    gpu = scenario.cluster.gpu
    quote = DerivedPriceBook(
        name=QUOTE_NAME,
        gpus={gpu: {f: getattr(book.gpus[gpu], f).typical for f in type(book.gpus[gpu]).model_fields}},
        fabrics={fid: {f: getattr(book.fabrics[fid], f).typical for f in type(book.fabrics[fid]).model_fields}
                 for fid in scenario.fabrics},
    )
    return scenario.model_copy(update={"custom_price_book": quote})
