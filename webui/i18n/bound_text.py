"""Numbers in refusals and help texts as people read them: a field's bounds and the value typed.

Large round numbers are written in the reader's units — 1 亿 and 10 万 in Chinese, 100 M and 1 B in
English — never in scientific notation ("1e+08"); other numbers keep their digits with separators.
"""

from __future__ import annotations

import math

#: Units of large round numbers by language, largest first: (factor, suffix).
_UNITS = {"zh": ((1e8, " 亿"), (1e4, " 万")), "en": ((1e9, " B"), (1e6, " M"))}
_MAX_DIGITS = 4  # a number written in a unit keeps at most this many significant digits


def bound(value: float, lang: str) -> str:
    """A bound or a typed value in ``lang``'s units.

    >>> bound(1e8, "zh"), bound(1e8, "en"), bound(100_000, "zh"), bound(100_000, "en")
    ('1 亿', '100 M', '10 万', '100,000')
    >>> bound(0.5, "en"), bound(123_456, "zh"), bound(2.5e9, "en"), bound(float("inf"), "zh")
    ('0.5', '123,456', '2.5 B', '∞')
    """
    v = float(value)
    if not math.isfinite(v):
        return ("−" if v < 0 else "") + "∞"
    for factor, suffix in _UNITS.get(lang, _UNITS["en"]):
        scaled = v / factor
        if abs(v) >= factor and float(f"{scaled:.{_MAX_DIGITS}g}") == scaled:
            return f"{scaled:,g}{suffix}"
    return plain(v)


def plain(value: float) -> str:
    """Every digit of a typed value: ``1,000,000,000,000``, ``2.5``, ``0.125``.

    >>> plain(1e12), plain(2.5), plain(-3.0)
    ('1,000,000,000,000', '2.5', '-3')
    """
    v = float(value)
    if not math.isfinite(v):
        return ("−" if v < 0 else "") + "∞"
    if v.is_integer() and abs(v) < 1e21:
        return f"{int(v):,}"
    return f"{v:,.10g}"
