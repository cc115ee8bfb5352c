"""Compare page: after-tax TCO and NPV beside the pre-tax ones, and t CO₂e per run, per year and
over the horizon, per fabric (issue 13). Rows from :mod:`webui.report_fincarbon`."""

from __future__ import annotations

import streamlit as st

from .report_fincarbon import carbon_header, carbon_rows, grid_note, tax_header, tax_note, tax_rows
from .text import md_escape


def _markdown_table(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "|".join([":--"] + ["--:"] * (len(header) - 1)) + "|",
                      *["| " + " | ".join(md_escape(str(c)) for c in row) + " |" for row in rows]])


def carbon_panel(t, scenario, res, money, names: dict[str, str]) -> None:
    """The section "After tax and carbon" of the Compare page."""
    h = res.horizon_years
    st.subheader(t("fincarbon.title"))
    st.markdown(_markdown_table(tax_header(t, h), tax_rows(res, names, money.short)))
    st.caption(md_escape(tax_note(t, scenario)))
    st.markdown(_markdown_table(carbon_header(t, h), carbon_rows(res, names)))
    st.caption(md_escape(grid_note(t, scenario)) + "  \n" + t("fincarbon.scope_note"))
