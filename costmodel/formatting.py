"""How the model writes numbers for people: money, shares, plain numbers. The CLI uses these;
the app formats plain numbers with them too and money with :mod:`webui.money` (symbols and
display-currency conversion)."""

from __future__ import annotations

import math

CURRENCY_SYMBOLS = {"USD": "$", "CNY": "¥", "EUR": "€"}


def format_money(value: float | None, currency: str, digits: int = 0) -> str:
    """Money with thousands separators and the currency code, e.g. ``'1,234,568 USD'``.

    >>> format_money(1234567.8, "USD")
    '1,234,568 USD'
    >>> format_money(-1500, "CNY")
    '-1,500 CNY'
    >>> format_money(None, "EUR")
    '—'
    """
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value:,.{digits}f} {currency}"


def format_share(value: float | None, digits: int = 1) -> str:
    """A 0-1 share as a percentage: ``format_share(0.1234) == '12.3 %'``."""
    if value is None or not math.isfinite(value):
        return "—"
    return f"{100.0 * value:.{digits}f} %"


def format_number(value: float | None, digits: int = 2) -> str:
    """A plain number with separators, or an em dash for missing values."""
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value:,.{digits}f}"
