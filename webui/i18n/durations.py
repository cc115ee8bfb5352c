"""A duration as a customer reads it — a payback, when two cumulative costs cross — in the page's
language, shared by the Compare page and the PDF report.

Units by size, so a short payback never reads "0.0 years" or "0.2 months":

* up to :data:`DAYS_UP_TO` whole days (about two months): whole days, rounded up ("repaid within
  6 days"), with the weeks in words — "6 days — within a week", "18 days — within 3 weeks";
  under a day: "less than a day";
* under :data:`MONTHS_BELOW_YEARS` years: months, one decimal ("7.3 months");
* beyond: years, one decimal ("2.4 years").

Two months and two years are where the next unit starts reading as a whole number of itself
(2.0 months, 2.0 years) rather than as a fraction (0.2 months, 1.4 years).
"""

from __future__ import annotations

import math

from webui.i18n.translator import Translator, fmt_number

DAYS_PER_YEAR = 365.25  # [days/year]
MONTHS_PER_YEAR = 12.0  # [months/year]
#: durations of up to this many whole days (rounded up) are written in days [days] (about two months)
DAYS_UP_TO = 60
#: shorter durations (and longer than DAYS_UP_TO days) are written in months [years]
MONTHS_BELOW_YEARS = 2.0
DAYS_PER_WEEK = 7


def duration_text(t: Translator, years: float | None, short: bool = False) -> str:
    """``years`` (a duration in years, e.g. a payback) in words in ``t``'s language; an em dash when
    it is missing, negative or infinite. ``short``: days without the weeks in words (a table's cell).

    >>> en = Translator("en")
    >>> [duration_text(en, d / DAYS_PER_YEAR) for d in (0.5, 5.2, 18, 60)]
    ['less than a day', '6 days — within a week', '18 days — within 3 weeks', '60 days — within 9 weeks']
    >>> duration_text(en, 0.6), duration_text(en, 2.44), duration_text(Translator("zh"), 0.016)
    ('7.2 months', '2.4 years', '6 天（一周内）')
    >>> duration_text(en, 18 / DAYS_PER_YEAR, short=True)
    '18 days'
    """
    if years is None or not math.isfinite(years) or years < 0:
        return "—"
    days = years * DAYS_PER_YEAR
    if days < 1.0 - 1e-9:
        return t("duration.under_day")
    whole = math.ceil(days - 1e-9)  # 1e-9: a whole number of days given in years stays that number
    if whole <= DAYS_UP_TO:
        weeks = math.ceil(whole / DAYS_PER_WEEK)
        if short:
            return t("duration.days", days=whole)
        return t("duration.week", days=whole) if weeks <= 1 else t("duration.weeks", days=whole, weeks=weeks)
    if years < MONTHS_BELOW_YEARS:
        return t("duration.months", n=fmt_number(years * MONTHS_PER_YEAR, 1))
    return t("duration.years", n=fmt_number(years, 1))


def months_text(t: Translator, months: float | None) -> str:
    """A duration given in months (a crossing's month), as :func:`duration_text` writes it."""
    return duration_text(t, None if months is None else months / MONTHS_PER_YEAR)


__all__ = ["DAYS_UP_TO", "MONTHS_BELOW_YEARS", "duration_text", "months_text"]
