"""Number boxes outside the scenario — a random seed, a discount in %, the exchange rate — with no
browser-side min/max (the browser's refusal is in English, and an integer box reads ``1e12`` with
``parseInt`` as 1): the server refuses a value outside the range, or a fraction of a count, with the
box's label and its range in the page's language."""

from __future__ import annotations

import math

import streamlit as st

from webui.i18n.bound_text import bound, plain
from webui.i18n.text import md_escape


def bounded_number(t, where, label: str, key: str, lo: float, hi: float, default: float, *,
                   whole: bool = False, fmt: str | None = None, help: str | None = None) -> float:
    """A number box outside the scenario (a random seed, a discount in %) with no browser-side
    min/max (the browser's refusal is in English and ``parseInt`` cuts ``1e12`` to 1): a value
    outside ``lo`` … ``hi``, or a fraction where ``whole``, is refused under the box with the
    label and the range; the last accepted value (else ``default``) is returned."""
    kept_key = f"{key}__kept"
    step, fmt = (1.0, fmt or "%.0f") if whole else (None, fmt)
    allowed = t("w.allowed", lo=bound(lo, t.lang), hi=bound(hi, t.lang))
    value = where.number_input(label, value=float(default), step=step, format=fmt, key=key,
                               help=f"{help}  \n{allowed}" if help else allowed)
    kept = st.session_state.get(kept_key, default)
    if value is None:
        return kept
    error = None
    if whole and not (math.isfinite(value) and float(value).is_integer()):
        error = t("wr.not_whole", field=label, value=plain(value), lo=bound(lo, t.lang), hi=bound(hi, t.lang))
    elif not (math.isfinite(value) and lo <= value <= hi):
        error = t("wr.out_of_range", field=label, value=plain(value), lo=bound(lo, t.lang), hi=bound(hi, t.lang))
    if error:
        where.error(t("w.refused", error=md_escape(error)), icon="⚠️")
        return kept
    st.session_state[kept_key] = int(value) if whole else float(value)
    return st.session_state[kept_key]


def refuse_rate(t, label: str, value: float | None, lo: float, hi: float, used: float) -> None:
    """Under a rate box without browser bounds: a value outside ``lo`` … ``hi`` is named with the
    range and the rate used instead (``used``), never replaced without a word."""
    if value is None or (math.isfinite(value) and lo <= value <= hi):
        return
    st.error(t("wr.rate_refused", field=label, value=plain(value), lo=bound(lo, t.lang), hi=bound(hi, t.lang),
               used=f"{used:,.4f}"), icon="⚠️")
