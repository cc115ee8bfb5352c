"""Report: downloads of the current scenario — a PDF report, a PowerPoint deck, an Excel workbook with live
formulas, CSV.

The two CSV files (about 1 ms each) are built with the page and handed to their buttons as bytes. The
Excel workbook (a few hundred ms) and the deck (about a second) are built only when asked for ("Prepare
the workbook", "Prepare the deck"), then kept in the session as bytes for its download button: a page
run never pays for it, and a click is a plain file fetch. (A callable built at click time is stored
unreferenced by any session, and Streamlit deletes such files whenever any session finishes a run: with
other sessions polling the PDF queue, a slow click's file was gone before the browser fetched it.) The
PDF goes through the process's PDF service (:mod:`webui.reports.pdf_service`): "Prepare the PDF" queues
a job, a fragment polls it and shows its progress — the place in the queue, then the stage (building,
drawing the charts, printing) and the seconds so far — then offers the finished bytes. All files show
money in the page's display currency and carry the scenario's display title in their names.
"""

from __future__ import annotations

import hashlib

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

import costmodel
from costmodel.exports.csv import csv_bytes, results_csv, yearly_csv
from costmodel.exports.workbook import workbook_bytes
from webui import compute
from webui.i18n.text import md_escape
from webui.panels.quote_request import request_form
from webui.reports import pdf_service
from webui.session import proposal, quote, storage
from webui.session import state as session
from webui.session.titles import file_stem, scenario_title

KEY_JOB = "report_pdf_job"
KEY_XLSX = "report_xlsx"  # (what the workbook is of, its bytes), built on request
KEY_PPTX = "report_pptx"  # (what the deck is of, its bytes), built on request
POLL_NEAR_S, POLL_FAR_S = pdf_service.LIMITS["poll_s"]  # how often a waiting page asks for news [s]

# the PDF is built on the service's thread, without the session: capture what it needs now
t = session.translator()
money = session.money()
scenario = quote.for_export(session.scenario())  # a customer's files: list prices, never a quote's
preset_id = session.preset()
lang, currency, rate = t.lang, money.currency, money.rate
title = scenario_title(scenario, preset_id, t)
stem = file_stem(title)
model_currency = costmodel.catalog.loader.load_catalog().price_book(scenario.price_book).currency
fx = "" if currency == model_currency else f" (1 {model_currency} = {rate:g} {currency})"
numbered = proposal.current_proposal()  # a numbered quote of this very scenario (sales engineers only)
pdf_key = hashlib.sha256(f"{scenario.model_dump_json()}|{lang}|{currency}|{rate!r}|{title}|{numbered}"
                         .encode()).hexdigest()
service = pdf_service.service()
ctx = get_script_run_ctx()
session_id = ctx.session_id if ctx is not None else "local"

st.title(t("report.title"))
st.caption(t("rpt.intro", name=md_escape(title), currency=currency, fx=fx))
if quote.hidden(session.scenario()):
    st.info(t("quote.export_list"), icon="🔒")
if numbered is not None:
    st.info(t("handoff.report_note", number=numbered.number, customer=md_escape(numbered.customer)),
            icon=":material/request_quote:")
elif storage.owner() is not None and st.session_state.get(proposal.KEY):
    st.caption(t("handoff.stale", number=st.session_state[proposal.KEY]["proposal"]["number"]))


def _build_pdf(s=scenario, lg=lang, p=preset_id, c=currency, r=rate, ti=title, q=numbered) -> str:
    from webui.reports.html import report_html

    return report_html(s, lg, p, c, r, ti, proposal=q)


def _prepare() -> None:
    try:
        job = service.submit(session_id, pdf_key, _build_pdf, client=storage.client_address(),
                             sales=storage.owner() is not None)
    except pdf_service.SessionBusyError:
        st.session_state[KEY_JOB + "_msg"] = ("info", t("rpt.pdf_busy"))
        return
    except pdf_service.ClientBusyError as exc:
        st.session_state[KEY_JOB + "_msg"] = ("warning", t("pdf.busy_client", n=exc.args[0]))
        return
    except pdf_service.QueueFullError as exc:
        st.session_state[KEY_JOB + "_msg"] = ("warning", t("rpt.pdf_full", n=exc.args[0]))
        return
    st.session_state[KEY_JOB] = job.id
    st.session_state.pop(KEY_JOB + "_msg", None)


def _cancel(job_id: str) -> None:
    service.cancel(job_id)
    st.session_state.pop(KEY_JOB, None)


def _poll_s(j: pdf_service.Job | None) -> float | None:
    """Seconds between a waiting page's questions: often when next or printing, less often further back."""
    if j is None or not j.pending:
        return None
    return POLL_NEAR_S if service.ahead(j) <= 1 else POLL_FAR_S


job = service.job(st.session_state.get(KEY_JOB))
poll_s = _poll_s(job)


def _progress(j: pdf_service.Job) -> None:
    """A pending job's progress: its place in the queue or its stage (step n of 3), and the seconds
    since it was asked for."""
    if j.state == pdf_service.RUNNING and j.stage in pdf_service.STAGES:
        text = t(f"progress.pdf_stage_{j.stage}")
    else:
        ahead = service.ahead(j)
        where = t("rpt.pdf_next") if ahead == 0 else (
            t("rpt.pdf_queued_one") if ahead == 1 else t("rpt.pdf_queued", n=ahead))
        text = t("progress.pdf_queued", ahead=where)
    text += " · " + t("progress.pdf_elapsed", s=int(j.elapsed()))
    wait = service.expected_wait(j)
    if wait is not None:
        text += " " + t("rpt.pdf_wait", s=max(1, round(wait)))
    st.info(text, icon=":material/hourglass_top:")


@st.fragment(run_every=poll_s)
def pdf_box() -> None:
    """The PDF card: a button, the place in the queue while waiting, then the download."""
    current = service.job(st.session_state.get(KEY_JOB))
    if poll_s is not None and _poll_s(current) != poll_s:
        st.rerun()  # finished, gone or moved up: redraw the page (it stops polling or polls faster)
    st.markdown(f"**{t('report.pdf')}**")
    st.caption(t("report.pdf_help"))
    if current is not None and current.pending:
        _progress(current)
        st.button(t("rpt.pdf_cancel"), key="pdf_cancel", on_click=_cancel, args=(current.id,))
        return
    if current is not None and current.state == pdf_service.DONE:
        if current.key == pdf_key:
            st.success(t("rpt.pdf_ready"), icon=":material/check_circle:")
            st.download_button(t("report.download"), current.pdf, file_name=f"{stem}-{lang}.pdf",
                               mime="application/pdf", key="dl_pdf", icon=":material/picture_as_pdf:",
                               on_click="ignore", type="primary")
            return
        st.caption(t("rpt.pdf_stale"))
    if current is not None and current.state == pdf_service.FAILED:
        st.error(t("rpt.pdf_failed", error=current.error or "?"))
    message = st.session_state.pop(KEY_JOB + "_msg", None)
    if message is not None:
        getattr(st, message[0])(message[1])
    if st.button(t("rpt.pdf_prepare"), key="pdf_prepare", icon=":material/picture_as_pdf:"):
        _prepare()
        st.rerun()  # the whole page: start polling, or show the message


with st.container(border=True):
    pdf_box()


def _prepare_pptx(s=scenario, lg=lang, p=preset_id, c=currency, r=rate, ti=title) -> None:
    from webui.reports.deck import deck_bytes  # python-pptx only when a deck is asked for

    st.session_state[KEY_PPTX] = (f"{pdf_key}|pptx", deck_bytes(s, lg, p, c, r, ti))


with st.container(border=True):
    st.markdown(f"**{t('deck.pptx')}**")
    st.caption(t("deck.pptx_help"))
    deck_built = st.session_state.get(KEY_PPTX)
    if deck_built is None or deck_built[0] != f"{pdf_key}|pptx":
        st.button(t("deck.pptx_prepare"), key="pptx_prepare", icon=":material/slideshow:", on_click=_prepare_pptx)
    else:
        st.download_button(t("report.download"), deck_built[1], file_name=f"{stem}-{lang}.pptx", key="dl_pptx",
                           mime="application/vnd.openxmlformats-officedocument.presentationml.presentation",
                           icon=":material/slideshow:", on_click="ignore")


def _xlsx_key() -> str:
    """What the workbook is of: the scenario, language, currency, rate and title."""
    return f"{pdf_key}|xlsx"


def _prepare_xlsx(s=scenario, c=currency, r=rate, lg=lang, ti=title) -> None:
    st.session_state[KEY_XLSX] = (_xlsx_key(), workbook_bytes(s, c, r, lang=lg, title=ti))


result = compute.evaluate(compute.key(scenario), _scenario=scenario)
results = csv_bytes(results_csv(result, currency, rate, title, lang, scenario))
yearly = csv_bytes(yearly_csv(result, currency, rate, title, lang, scenario))
built = st.session_state.get(KEY_XLSX)
xlsx = built[1] if built is not None and built[0] == _xlsx_key() else None
c1, c2, c3 = st.columns(3)
with c1, st.container(border=True):
    st.markdown(f"**{t('report.xlsx')}**")
    st.caption(t("report.xlsx_help"))
    if xlsx is None:
        st.caption(t("progress.xlsx_help"))
        st.button(t("progress.xlsx_prepare"), key="xlsx_prepare", icon=":material/table:", on_click=_prepare_xlsx)
    else:
        st.download_button(t("report.download"), xlsx, file_name=f"{stem}.xlsx", key="dl_xlsx", icon=":material/table:",
                           mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                           on_click="ignore")
with c2, st.container(border=True):
    st.markdown(f"**{t('report.results_csv')}**")
    st.caption(t("report.results_csv_help"))
    st.download_button(t("report.download"), results, file_name=f"{stem}-results.csv", mime="text/csv",
                       key="dl_results", icon=":material/download:", on_click="ignore")
with c3, st.container(border=True):
    st.markdown(f"**{t('report.yearly_csv')}**")
    st.caption(t("report.yearly_csv_help"))
    st.download_button(t("report.download"), yearly, file_name=f"{stem}-yearly.csv", mime="text/csv",
                       key="dl_yearly", icon=":material/download:", on_click="ignore")
if storage.owner() is None:  # a customer's hand-off to sales
    request_form(t)
