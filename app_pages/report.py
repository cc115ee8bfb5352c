"""Report: downloads of the current scenario — a PDF report, an Excel workbook with live formulas, CSV.

Files are built when the button is clicked (a callable), from the same model the pages show.
"""

from __future__ import annotations

import re

import streamlit as st

import costmodel
from costmodel.export_csv import results_csv, yearly_csv
from costmodel.export_xlsx import workbook_bytes
from webui import session
from webui.text import md_escape

# the download callables run on another thread, without the session: capture what they need now
t = session.translator()
money = session.money()
scenario = session.scenario()
preset_id = session.preset()
lang, currency, rate = t.lang, money.currency, money.rate
stem = re.sub(r"[^A-Za-z0-9_-]+", "-", scenario.name).strip("-")[:60] or "scenario"

st.title(t("report.title"))
st.caption(t("report.intro", name=md_escape(scenario.name), currency=costmodel.catalog.load_catalog()
             .price_book(scenario.price_book).currency))


def _results() -> str:
    return results_csv(costmodel.evaluate(scenario))


def _yearly() -> str:
    return yearly_csv(costmodel.evaluate(scenario))


def _xlsx() -> bytes:
    return workbook_bytes(scenario, currency, rate)


def _pdf() -> bytes:
    from webui.report_pdf import report_pdf

    return report_pdf(scenario, lang, preset_id, currency, rate)


with st.container(border=True):
    st.markdown(f"**{t('report.pdf')}**")
    st.caption(t("report.pdf_help"))
    st.download_button(t("report.download"), _pdf, file_name=f"{stem}-{t.lang}.pdf", mime="application/pdf",
                       key="dl_pdf", icon=":material/picture_as_pdf:", on_click="ignore")

c1, c2, c3 = st.columns(3)
with c1, st.container(border=True):
    st.markdown(f"**{t('report.xlsx')}**")
    st.caption(t("report.xlsx_help"))
    st.download_button(t("report.download"), _xlsx, file_name=f"{stem}.xlsx", key="dl_xlsx", icon=":material/table:",
                       mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", on_click="ignore")
with c2, st.container(border=True):
    st.markdown(f"**{t('report.results_csv')}**")
    st.caption(t("report.results_csv_help"))
    st.download_button(t("report.download"), _results, file_name=f"{stem}-results.csv", mime="text/csv",
                       key="dl_results", icon=":material/download:", on_click="ignore")
with c3, st.container(border=True):
    st.markdown(f"**{t('report.yearly_csv')}**")
    st.caption(t("report.yearly_csv_help"))
    st.download_button(t("report.download"), _yearly, file_name=f"{stem}-yearly.csv", mime="text/csv",
                       key="dl_yearly", icon=":material/download:", on_click="ignore")
