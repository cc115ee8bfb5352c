"""Compare page: after-tax TCO and NPV beside the pre-tax ones, and t CO₂e per run, per year and
over the horizon, per fabric. Rows from :mod:`webui.sections.fincarbon`."""

from __future__ import annotations

import streamlit as st

from webui.i18n.text import markdown_table, md_escape
from webui.sections.fincarbon import carbon_header, carbon_rows, grid_note, tax_header, tax_note, tax_rows


def carbon_panel(t, scenario, res, money, names: dict[str, str]) -> None:
    """The section "After tax and carbon" of the Compare page."""
    h = res.horizon_years
    st.subheader(t("fincarbon.title"))
    st.markdown(markdown_table(tax_header(t, h), tax_rows(res, names, money.short)))
    st.caption(md_escape(tax_note(t, scenario)))
    st.markdown(markdown_table(carbon_header(t, h), carbon_rows(res, names)))
    st.caption(md_escape(grid_note(t, scenario)) + "  \n" + t("fincarbon.scope_note"))
