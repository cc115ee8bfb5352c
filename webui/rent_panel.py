"""Compare's "Own vs rent" panel: per fabric the owned cost per GPU-hour and the utilisation at which
owning beats renting, the rental price ranges of the scenario's GPU with their dates and sources, and
the cost of renting the scenario's yearly work (figures from :mod:`costmodel.rent`, rows from
:mod:`webui.report_rent`, shared with the PDF report)."""

from __future__ import annotations

import streamlit as st

from webui import report_rent as rr
from webui.i18n import Translator
from webui.labels import fabric_names
from webui.money import Money
from webui.text import md_escape


def _table(header: list[str], rows: list[list[str]], escape_first: bool = False) -> str:
    """A Markdown table (first column left-aligned, the others right-aligned); the first column
    escaped when it holds fabric names (as Compare's specifications table does)."""
    return "\n".join([
        "| " + " | ".join(header) + " |",
        "|" + "|".join([":--"] + ["--:"] * (len(header) - 1)) + "|",
        *["| " + " | ".join(md_escape(c) if i == 0 and escape_first else c for i, c in enumerate(row)) + " |"
          for row in rows],
    ])


def render(t: Translator, money: Money, scenario, result) -> None:
    """The panel on Compare (one call line in app_pages/compare.py)."""
    st.subheader(t("rent.title"))
    o = rr.figures(result, scenario)
    if o is None:
        st.info(rr.not_applicable(t, result, scenario), icon="ℹ️")  # catalog names, not user text
        return
    names = fabric_names(t)
    st.caption(md_escape(rr.intro(t, o, names)))
    st.markdown(_table(*rr.price_rows(t, o, money)))
    st.markdown(f"**{t('rent.owned_heading')}**")
    st.markdown(_table(*rr.owned_rows(t, o, money, names), escape_first=True))
    st.markdown(f"**{t('rent.rent_heading')}**")
    st.markdown(_table(*rr.rented_rows(t, o, money, names), escape_first=True))
    line = rr.summary(t, o, names)
    if line:
        st.caption(md_escape(line))
    st.caption(t("rent.notes", mode=t(f"rent.mode.{o.rented_efficiency}"), currency=money.currency))
    st.caption("  \n".join(rr.reference_lines(t, o)))  # our own data, not user text
