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


def format_sig(value: float | None, digits: int = 4) -> str:
    """A number to ``digits`` significant digits in plain notation with separators — never ``2.499e+04``.

    >>> format_sig(24990.3), format_sig(1.7623e6), format_sig(0.04213), format_sig(-12.5), format_sig(3.0)
    ('24,990', '1,762,000', '0.04213', '-12.5', '3')
    >>> format_sig(1.23e-7), format_sig(float("nan"))
    ('0.000000123', '—')
    """
    if value is None or not math.isfinite(value):
        return "—"
    if value == 0:
        return "0"
    rounded = float(f"{value:.{digits}g}")
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(rounded))))
    text = f"{rounded:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
