"""What a customer may see of a negotiated quote: its totals, never its item prices.

A sales engineer's scenario may carry a negotiated quote (``custom_price_book``; in links and
customer exports reduced by :func:`costmodel.scenario.price_books.quote_only`). A customer who opens it
sees every result computed with it — TCO, breakdowns, cash flows, break-even node counts — but
item prices only from the public list, and no file, link or address bar of theirs carries the
quote's prices. Sales engineers see everything. One rule, used by every page and export.
"""

from __future__ import annotations

import costmodel
from costmodel.catalog.loader import Catalog, PriceBook, load_catalog
from costmodel.scenario import price_books
from webui.session import storage

#: break-even parameters that are item prices of a book (their current value would reveal the quote)
ITEM_PRICE_PARAMETERS = frozenset({"server_price", "nic_price", "switch_price", "cable_price", "optic_price",
                                   "install_per_node"})


def hidden(scenario: costmodel.Scenario) -> bool:
    """True when this viewer (a customer) must not see the item prices of ``scenario``'s quote."""
    return scenario.custom_price_book is not None and storage.owner() is None


def item_book(scenario: costmodel.Scenario, catalog: Catalog | None = None) -> PriceBook:
    """The price book whose *item* prices this viewer may see: the quote for sales, the public
    list the scenario starts from for a customer."""
    cat = catalog or load_catalog()
    if hidden(scenario):
        return cat.price_book(scenario.price_book)
    return price_books.for_scenario(scenario, cat)


def public_copy(scenario: costmodel.Scenario) -> costmodel.Scenario:
    """``scenario`` at public list prices (no quote): what a customer's file or link may carry."""
    return scenario.model_copy(update={"custom_price_book": None})


def for_export(scenario: costmodel.Scenario) -> costmodel.Scenario:
    """The scenario a file or link of this viewer carries: sales keep the quote, customers the list."""
    return public_copy(scenario) if hidden(scenario) else scenario
