"""How the model writes numbers and names for people: money, shares, plain numbers, fabric names.
The CLI uses these; the app formats plain numbers with them too and money with :mod:`webui.i18n.money`
(symbols); currency conversion is :mod:`costmodel.catalog.currency`'s."""

from __future__ import annotations

import math
from typing import Protocol

from costmodel.catalog.currency import SYMBOLS as CURRENCY_SYMBOLS  # noqa: F401  (the one table of symbols)
from costmodel.catalog.loader import Catalog, load_catalog


class _Named(Protocol):
    name: str
    name_zh: str


def fabric_name(fabric: _Named, lang: str = "en") -> str:
    """A fabric's display name in ``lang`` (``zh``: its Chinese name; any other language: English).

    ``fabric`` is anything with ``name`` and ``name_zh``: a catalog fabric or a fabric's result.

    >>> spec = load_catalog().fabrics["roce-200"]
    >>> fabric_name(spec, "en") == spec.name, fabric_name(spec, "zh") == spec.name_zh
    (True, True)
    """
    return fabric.name_zh if lang == "zh" else fabric.name


def fabric_names(lang: str = "en", catalog: Catalog | None = None) -> dict[str, str]:
    """Display name of every catalog fabric in ``lang``, by fabric id (the one place names are chosen).

    >>> fabric_names("en")["roce-200"] == load_catalog().fabrics["roce-200"].name
    True
    """
    return {fid: fabric_name(f, lang) for fid, f in (catalog or load_catalog()).fabrics.items()}


def fabric_short_names(lang: str = "en", catalog: Catalog | None = None) -> dict[str, str]:
    """The short label of every catalog fabric in ``lang`` (charts, narrow tables), by fabric id.

    The catalog's ``short_zh`` (Chinese) or ``short``; a fabric without one, or whose label another
    fabric shares, gets its full name (two bars or lines labelled alike would merge on a chart).

    >>> fabric_short_names("en")["ib-ndr-400"], fabric_short_names("zh")["roce-ar-400"]
    ('IB NDR 400G', 'RoCE 自适应 400G')
    """
    cat = catalog or load_catalog()
    short = {fid: (f.short_zh if lang == "zh" and f.short_zh else f.short) or fabric_name(f, lang)
             for fid, f in cat.fabrics.items()}
    counts: dict[str, int] = {}
    for label in short.values():
        counts[label] = counts.get(label, 0) + 1
    return {fid: label if counts[label] == 1 else fabric_name(cat.fabrics[fid], lang) for fid, label in short.items()}


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


def format_ratio(value: float | None, digits: int = 3) -> str:
    """A ratio with a times sign, or an em dash when there is none (e.g. a baseline that costs nothing).

    >>> format_ratio(0.91234), format_ratio(float("nan")), format_ratio(None)
    ('0.912×', '—', '—')
    """
    if value is None or not math.isfinite(value):
        return "—"
    return f"{value:.{digits}f}×"


def format_percent_sig(value: float | None, digits: int = 2) -> str:
    """A 0-1 share as a percentage to ``digits`` significant digits; exactly zero is ``'0'``.

    >>> format_percent_sig(1e-5), format_percent_sig(0.0123), format_percent_sig(0.0)
    ('0.001 %', '1.2 %', '0')
    """
    if value is None or not math.isfinite(value):
        return "—"
    return f"{100 * value:.{digits}g} %" if value else "0"


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
