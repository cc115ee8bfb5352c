"""Quote requests: customers' requests and the numbered quotes made from them — sales engineers only.

A request opens as the session's scenario (at list prices, as the customer sent it); the current
scenario becomes a numbered quote (saved as a new version, numbered by the store); a numbered quote
reopens at its pinned version, with its pinned figures beside the current model's when they differ.
The page is in the navigation only when signed in, and draws nothing for a customer who reaches it.
"""

from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

import store
from costmodel.scenario import formats
from store import proposals
from webui.i18n.text import md_escape
from webui.panels.quote_request import errors_text
from webui.session import notices, proposal, recomputed, share, storage
from webui.session import state as session

KEY_ERRORS = "proposal_errors"
t = session.translator()
money = session.money()
owner = storage.owner()
db = storage.get_store()

st.title(t("handoff.title"))
if owner is None:  # never a customer's page: not in their navigation, and nothing drawn here either
    st.stop()
if db is None:
    st.error(t("auth.store_down"))
    st.stop()
notices.show()


def _when(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M")


@storage.as_owner(owner)
def _open_request(key: str) -> None:
    req = proposals.load_request(db, owner, st.session_state.get(key, ""))
    session.replace(req.scenario(), share.BLANK)
    storage.set_origin(None)
    st.session_state[proposal.KEY_REQUEST] = req.id
    st.session_state.pop(proposal.KEY_CHANGES, None)
    notices.flash("success", t("handoff.opened", company=md_escape(req.company)))


@storage.as_owner(owner)
def _make(request_id: str | None, suffix: str) -> None:
    fields = [st.session_state.get(f"pq_{name}{suffix}", "") for name in ("customer", "project", "valid")]
    try:
        proposals.check_proposal(*fields)  # before the save: a refused quote leaves no version behind
        version = db.save_scenario(owner, session.scenario(), note="numbered quote")
        made = proposals.create_proposal(db, owner, storage.display_name(), version, *fields, request_id)
    except proposals.InvalidRequest as err:
        st.session_state[KEY_ERRORS] = err.errors
        return
    storage.set_origin(version)
    proposal.remember(made, session.scenario())
    st.session_state.pop(proposal.KEY_CHANGES, None)
    notices.flash("success", t("handoff.made", number=made.number, name=md_escape(version.name),
                               version=version.version))


@storage.as_owner(owner)
def _reopen(key: str) -> None:
    found, info = proposals.open_proposal(db, owner, st.session_state.get(key, ""))
    proposal.reopen(found, info)
    notices.flash("success", t("handoff.reopened", number=found.number))


changes = st.session_state.get(proposal.KEY_CHANGES)
if changes is not None:  # a reopened quote: its pinned figures against the current model's
    number, found = changes
    if found:
        st.warning("  \n".join([t("handoff.pinned_title", number=number),
                                *recomputed.lines(t, money, [formats.Change(**c) for c in found])]),
                   icon=":material/compare_arrows:")
    else:
        st.info(t("handoff.pinned_same", number=number), icon=":material/verified:")
held = proposal.current_proposal()
if held is not None:
    st.caption(t("handoff.current", number=held.number, customer=md_escape(held.customer),
                 project=md_escape(held.project), valid_until=held.valid_until))

# --- customers' requests -----------------------------------------------------------------------
requests = proposals.list_requests(db, owner)
made_from = proposals.proposals_of_requests(db, owner)
with st.container(border=True):
    st.subheader(t("handoff.requests_title"))
    if not requests:
        st.caption(t("handoff.requests_empty"))
    else:  # a table shows cells as plain text: nothing a customer typed is read as Markdown or HTML
        st.dataframe(pd.DataFrame([{
            t("handoff.col_received"): _when(r.created_at), t("handoff.company"): r.company,
            t("handoff.col_name"): r.name, t("handoff.contact"): r.contact, t("handoff.col_note"): r.note,
            t("handoff.col_scenario"): r.scenario_name, t("handoff.col_quotes"): ", ".join(made_from.get(r.id, []))}
            for r in requests]), hide_index=True, width="stretch")
        by_id = {r.id: r for r in requests}
        cols = st.columns([4, 1], vertical_alignment="bottom")
        cols[0].selectbox(t("handoff.pick"), list(by_id), key="pq_pick",
                          format_func=lambda i: f"{by_id[i].company} · {by_id[i].name} · {_when(by_id[i].created_at)}")
        cols[1].button(t("handoff.open"), key="pq_open", icon=":material/open_in_new:", on_click=_open_request,
                       args=("pq_pick",))

# --- make a numbered quote of the current scenario -------------------------------------------------
request_id = st.session_state.get(proposal.KEY_REQUEST)
try:
    source = proposals.load_request(db, owner, request_id) if request_id else None
except store.NotFound:
    source = None
suffix = f"_{source.id}" if source else ""  # the fields start from the request it answers
with st.container(border=True):
    st.subheader(t("handoff.make_title"))
    st.caption(t("handoff.make_intro"))
    if source is not None:
        st.caption(t("handoff.from_request", company=md_escape(source.company), name=md_escape(source.name)))
    with st.form("pq_make"):
        left, right, last = st.columns([3, 3, 2])
        left.text_input(t("handoff.customer"), value=source.company if source else "", key=f"pq_customer{suffix}",
                        max_chars=200)
        right.text_input(t("handoff.project"), value=session.scenario().name, key=f"pq_project{suffix}",
                         max_chars=200)
        last.date_input(t("handoff.valid_until"), value=proposals.default_valid_until(), key=f"pq_valid{suffix}",
                        min_value=dt.datetime.now(dt.UTC).date())
        st.form_submit_button(t("handoff.make"), type="primary", icon=":material/request_quote:", on_click=_make,
                              args=(source.id if source else None, suffix))
    if KEY_ERRORS in st.session_state:
        st.error("  \n".join(errors_text(t, st.session_state.pop(KEY_ERRORS))), icon=":material/error:")

# --- numbered quotes -------------------------------------------------------------------------------
quotes = proposals.list_proposals(db, owner)
with st.container(border=True):
    st.subheader(t("handoff.quotes_title"))
    if not quotes:
        st.caption(t("handoff.quotes_empty"))
    else:
        st.dataframe(pd.DataFrame([{
            t("handoff.col_number"): q.number, t("handoff.customer"): q.customer, t("handoff.project"): q.project,
            t("handoff.valid_until"): q.valid_until, t("handoff.col_author"): q.author_name,
            t("handoff.col_made"): _when(q.created_at)} for q in quotes]), hide_index=True, width="stretch")
        cols = st.columns([4, 1], vertical_alignment="bottom")
        cols[0].selectbox(t("handoff.col_number"), [q.number for q in quotes], key="pq_quote")
        cols[1].button(t("handoff.reopen"), key="pq_reopen", icon=":material/history:", on_click=_reopen,
                       args=("pq_quote",))
