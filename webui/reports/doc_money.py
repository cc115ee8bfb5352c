"""Money written one way throughout a customer document (the PDF report).

One rule for every table, sentence and chart axis of one document, so no table shows ¥52,780,000
where the next shows ¥5,278 万:

* Chinese: an amount of 10⁴ or more (in the display currency) in 万 or 亿, four significant digits
  at most (¥5,278 万, ¥1.23 亿, as :meth:`webui.i18n.money.Money.short`); a smaller one in full (¥852,
  ¥2.84).
* English: an amount of 10⁶ or more in M with thousands separators and two decimals ($12.35 M,
  $1,234.56 M: never k or B); a smaller one in full with thousands separators ($850,000, $2.84).

:data:`ZH_UNIT_FROM` and :data:`EN_UNIT_FROM` are the thresholds the PDF test checks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from webui.i18n.money import SYMBOLS, Money

ZH_UNIT_FROM = 1e4  # from 万 up, a Chinese amount is written in 万 or 亿
EN_UNIT_FROM = 1e6  # from a million up, an English amount is written in M


@dataclass(frozen=True)
class DocumentMoney(Money):
    """:class:`Money` whose full form and compact form follow the document rule of the module."""

    def __call__(self, value: float | None, digits: int = 0, signed: bool = False) -> str:
        if value is None or not math.isfinite(value):
            return "—"
        v = self.convert(value)
        if round(abs(v), digits) < (ZH_UNIT_FROM if self.lang == "zh" else EN_UNIT_FROM):
            return super().__call__(value, digits, signed)
        text = self._unit(abs(v))
        return ("+" if signed and v > 0 else "−" if v < 0 else "") + text

    def short(self, value: float | None) -> str:
        """The same text as a call: one form per amount in the whole document."""
        return self(value)

    def _unit(self, a: float) -> str:
        """A positive amount of at least the language's threshold, in its unit."""
        if self.lang == "zh":
            return Money.short(self, a / self.rate if self.rate else a)
        return f"{SYMBOLS[self.currency]}{a / 1e6:,.2f} M"


def document_money(money: Money) -> DocumentMoney:
    """``money``'s currency, rate and language with the document rule."""
    return DocumentMoney(**{f.name: getattr(money, f.name) for f in fields(Money)})
