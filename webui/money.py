"""Display currency: conversion from the price book's currency happens here, and only here."""

from __future__ import annotations

import math
from dataclasses import dataclass

from costmodel.catalog import load_catalog

CURRENCIES = ("CNY", "USD", "EUR")
SYMBOLS = {"CNY": "¥", "USD": "$", "EUR": "€"}
MIN_RATE, MAX_RATE = 1e-6, 1e6


def default_rate(model_currency: str, display_currency: str) -> float:
    """Reference rate (display units per model unit) from defaults.yaml (fx_per_usd)."""
    fx = load_catalog().fx_per_usd
    return fx[display_currency].typical / fx[model_currency].typical


@dataclass(frozen=True)
class Money:
    """Formats model money (in ``model_currency``) as ``currency`` at ``rate``."""

    model_currency: str
    currency: str
    rate: float

    def convert(self, value: float) -> float:
        return value * self.rate

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
        return Money(self.currency, self.currency, 1.0)

    def short(self, value: float | None) -> str:
        """Compact form for KPI cards: ¥12.3 M, $850 k."""
        if value is None or not math.isfinite(value):
            return "—"
        v = self.convert(value)
        sign = "−" if v < 0 else ""
        a = abs(v)
        for div, suffix in ((1e9, " B"), (1e6, " M"), (1e3, " k")):
            if a >= div:
                return f"{sign}{SYMBOLS[self.currency]}{a / div:,.2f}{suffix}"
        return f"{sign}{SYMBOLS[self.currency]}{a:,.0f}"
