"""Currency conversion for the model, the app and the exports — the one place that does it.

The model computes in its price book's currency (the *model currency*). Anything shown or
exported in another currency is converted here: :func:`reference_rate` reads the catalog's
reference exchange rates (``defaults.yaml: fx_per_usd``, sourced and dated there);
:func:`shown_rate` is the rate an export applies (1 when nothing is converted);
:func:`convert` turns an amount into another currency at the reference rate.
"""

from __future__ import annotations

import math

from costmodel import quantities
from costmodel.catalog.loader import Catalog, load_catalog

CURRENCIES = ("CNY", "USD", "EUR")
SYMBOLS = {"CNY": "¥", "USD": "$", "EUR": "€"}
MIN_RATE, MAX_RATE = quantities.spec("money.fx_rate").bounds()  # display units per model unit: the registry's


def reference_rate(model_currency: str, display_currency: str, catalog: Catalog | None = None) -> float:
    """Reference rate [``display_currency`` per ``model_currency``] from the catalog's ``fx_per_usd``.

    >>> reference_rate("USD", "USD")
    1.0
    >>> cat = load_catalog()
    >>> reference_rate("USD", "CNY") == cat.fx_per_usd["CNY"].typical / cat.fx_per_usd["USD"].typical
    True
    """
    fx = (catalog or load_catalog()).fx_per_usd
    return fx[display_currency].typical / fx[model_currency].typical


def convert(amount: float, from_currency: str, to_currency: str, catalog: Catalog | None = None) -> float:
    """``amount`` [``from_currency``] in ``to_currency`` at the reference rate.

    >>> convert(100.0, "CNY", "CNY")
    100.0
    >>> round(convert(convert(100.0, "USD", "EUR"), "EUR", "USD"), 9)
    100.0
    """
    return amount * reference_rate(from_currency, to_currency, catalog)


def shown_rate(model_currency: str, currency: str | None, rate: float) -> tuple[str, float]:
    """The currency an export shows (default: the model's) and the rate it applies to model money.

    ``rate`` is display units per model unit; it must be a positive, finite number. Money in
    the model currency is never converted (rate 1, whatever was passed).

    >>> shown_rate("USD", None, 7.1), shown_rate("USD", "CNY", 7.1), shown_rate("USD", "USD", 7.1)
    (('USD', 1.0), ('CNY', 7.1), ('USD', 1.0))
    >>> shown_rate("USD", "CNY", 0)
    Traceback (most recent call last):
    ...
    ValueError: rate must be a positive number (got 0)
    """
    shown = currency or model_currency
    if not (isinstance(rate, float | int) and 0 < rate < math.inf):
        raise ValueError(f"rate must be a positive number (got {rate!r})")
    return shown, 1.0 if shown == model_currency else float(rate)


def is_money_unit(unit: str) -> bool:
    """True for a unit that is an amount of money (``currency``, ``currency/node`` …): converted when shown.

    >>> is_money_unit("currency/GPU-h"), is_money_unit("1/h")
    (True, False)
    """
    return "currency" in unit


__all__ = ["CURRENCIES", "MAX_RATE", "MIN_RATE", "SYMBOLS", "convert", "is_money_unit", "reference_rate",
           "shown_rate"]
