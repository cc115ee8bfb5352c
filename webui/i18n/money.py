"""Display currency in the app: the :class:`Money` formatter. Rates and conversion rules come from
:mod:`costmodel.catalog.currency` (one module for the model, the app and the exports)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from costmodel.catalog.currency import CURRENCIES, MAX_RATE, MIN_RATE, SYMBOLS, is_money_unit, reference_rate

#: Compact units per language, largest first: (divisor, suffix). Chinese counts in 万 (10⁴) and
#: 亿 (10⁸), as the UI does for model sizes; English in k, M, B.
SHORT_UNITS = {
    "en": ((1e9, " B"), (1e6, " M"), (1e3, " k")),
    "zh": ((1e8, " 亿"), (1e4, " 万")),
}


def compact(value: float, lang: str = "en") -> tuple[float, str]:
    """``value`` scaled to its compact unit in ``lang``, and the unit's suffix.

    >>> compact(52_780_000, "zh"), compact(52_780_000, "en"), compact(950, "zh")
    ((5278.0, ' 万'), (52.78, ' M'), (950, ''))
    """
    a = abs(value)
    for div, suffix in SHORT_UNITS.get(lang, SHORT_UNITS["en"]):
        if a >= div:
            return value / div, suffix
    return value, ""


def _short_digits(scaled: float, lang: str) -> int:
    """Decimals of a compact amount: two in English (¥52.78 M); in Chinese four significant
    digits at most (¥5,278 万, ¥527.8 万, ¥1.23 亿) — a 万 figure is already precise."""
    if lang != "zh":
        return 2
    a = abs(scaled)
    return 0 if a >= 1000 else 1 if a >= 100 else 2


def default_rate(model_currency: str, display_currency: str) -> float:
    """Reference rate (display units per model unit): :func:`costmodel.catalog.currency.reference_rate`."""
    return reference_rate(model_currency, display_currency)


@dataclass(frozen=True)
class Money:
    """Formats model money (in ``model_currency``) as ``currency`` at ``rate``; compact amounts
    in the units of ``lang`` (``en``: k / M / B, ``zh``: 万 / 亿)."""

    model_currency: str
    currency: str
    rate: float
    lang: str = "en"

    def convert(self, value: float) -> float:
        return value * self.rate

    def convert_in(self, value, unit: str):
        """``value`` (a number or an array) in ``unit`` as shown: money units converted, others as they are."""
        return value * self.rate if is_money_unit(unit) else value

    def unit(self, unit: str) -> str:
        """A unit as shown: ``currency`` replaced by the display currency (``currency/GPU-h`` → ``USD/GPU-h``)."""
        return unit.replace("currency", self.currency)

    def __call__(self, value: float | None, digits: int = 0, signed: bool = False) -> str:
        if value is None or not math.isfinite(value):
            return "—"
        v = self.convert(value)
        sign = "+" if signed and v > 0 else ("−" if v < 0 else "")
        return f"{sign}{SYMBOLS[self.currency]}{abs(v):,.{digits}f}"

    def delta(self, value: float | None) -> str | None:
        """A signed compact amount for ``st.metric(delta=…)``, which reads an ASCII sign."""
        if value is None or not math.isfinite(value):
            return None
        return ("-" if value < 0 else "+") + self.short(abs(value))

    @property
    def display(self) -> Money:
        """A formatter for amounts already converted to the display currency (charts convert first)."""
        return replace(self, model_currency=self.currency, rate=1.0)

    def short(self, value: float | None) -> str:
        """Compact form for KPI cards: ``$12.35 M``, ``$850.00 k``; in Chinese ``¥5,278 万``, ``¥1.23 亿``."""
        if value is None or not math.isfinite(value):
            return "—"
        v = self.convert(value)
        sign = "−" if v < 0 else ""
        a = abs(v)
        # unit and decimals from the amount as it will read (four significant digits in Chinese), so
        # 9,999,999 reads ¥1,000 万, not ¥1,000.0 万; the digits shown are still the amount's own
        shown = float(f"{a:.4g}") if self.lang == "zh" else a
        scaled, suffix = compact(shown, self.lang)
        digits = _short_digits(scaled, self.lang) if suffix else 0
        value = a / (shown / scaled) if suffix and scaled else a
        return f"{sign}{SYMBOLS[self.currency]}{value:,.{digits}f}{suffix}"


__all__ = ["CURRENCIES", "MAX_RATE", "MIN_RATE", "SYMBOLS", "Money", "compact", "default_rate"]
