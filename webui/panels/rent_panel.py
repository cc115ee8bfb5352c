"""Compare's "Own vs rent" panel: per fabric the owned cost per GPU-hour and the utilisation at which
owning beats renting, the rental price ranges of the scenario's GPU with their dates and sources, and
the cost of renting the scenario's yearly work (figures from :mod:`costmodel.analysis.rent`, rows from
:mod:`webui.sections.rent`, shared with the PDF report)."""

from __future__ import annotations

import streamlit as st

from webui.i18n.labels import fabric_names
from webui.i18n.money import Money
from webui.i18n.text import markdown_table, md_escape
from webui.i18n.translator import Translator
from webui.sections import rent as rr


def render(t: Translator, money: Money, scenario, result) -> None:
    """The panel on Compare (one call line in app_pages/compare.py)."""
    st.subheader(t("rent.title"))
    o = rr.figures(result, scenario)
    if o is None:
        st.info(rr.not_applicable(t, result, scenario), icon="ℹ️")  # catalog names, not user text
        return
    names = fabric_names(t)
    st.caption(md_escape(rr.intro(t, o, names)))
    st.markdown(markdown_table(*rr.price_rows(t, o, money)))
    st.markdown(f"**{t('rent.owned_heading')}**")
    st.markdown(markdown_table(*rr.owned_rows(t, o, money, names)))
    st.markdown(f"**{t('rent.rent_heading')}**")
    st.markdown(markdown_table(*rr.rented_rows(t, o, money, names)))
    line = rr.summary(t, o, names)
    if line:
        st.caption(md_escape(line))
    st.caption(t("rent.notes", mode=t(f"rent.mode.{o.rented_efficiency}"), currency=money.currency))
    st.caption("  \n".join(rr.reference_lines(t, o)))  # our own data, not user text
