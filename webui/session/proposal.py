"""The session's numbered quote and a customer's request for one.

A numbered quote ("proposal", :class:`store.proposals.Proposal`) is what a sales engineer sends: a quote
number, customer, project, validity and author over a pinned scenario version. It is not the negotiated
price book that :mod:`webui.session.quote` calls a quote. The session keeps the proposal it made or
reopened with the scenario document it pins; :func:`current_proposal` returns it only while the session's
scenario is still exactly that document, so a file never carries a number over figures it does not hold.
"""

from __future__ import annotations

import dataclasses
import logging

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

import costmodel
from store import proposals
from store.proposals import Proposal
from webui.session import quote, share, storage
from webui.session import state as session

log = logging.getLogger(__name__)
KEY = "proposal_current"  # {"proposal": fields of Proposal, "document": the pinned scenario as a dict}
KEY_REQUEST = "proposal_request"  # the id of the customer's request the session's scenario was opened from
KEY_CHANGES = "proposal_changes"  # (number, [formats.Change as dicts]): pinned figures the model now changes
KEY_SENT = "request_sent"  # a customer's confirmation: (name, contact)


def current_proposal() -> Proposal | None:
    """The numbered quote of the session's scenario (sales engineers only; None when the scenario was
    changed since the quote was made or reopened, or none was)."""
    held = st.session_state.get(KEY)
    if not held or storage.owner() is None:
        return None
    if session.scenario().model_dump(mode="json") != held["document"]:
        return None
    return Proposal(**held["proposal"])


def remember(found: Proposal, scenario: costmodel.Scenario) -> None:
    """Make ``found`` the session's numbered quote over ``scenario`` (its pinned version)."""
    st.session_state[KEY] = {"proposal": dataclasses.asdict(found), "document": scenario.model_dump(mode="json")}


def reopen(found: Proposal, info) -> None:
    """Load a reopened quote's pinned version into the session and keep what the current model changes."""
    scenario = info.scenario()
    session.replace(scenario, share.BLANK)
    storage.set_origin(info)
    remember(found, scenario)
    try:
        changed = found.recomputed(scenario)
    except Exception:  # a notice must never stop a reopen; the page still shows the figures
        log.warning("could not recompute the quote's pinned figures", exc_info=True)
        changed = []
    st.session_state[KEY_CHANGES] = (found.number, [dataclasses.asdict(c) for c in changed])


def browser_id() -> str:
    """This browser session's id: the request counter per browser."""
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "local"


def submit(name: str, company: str, contact: str, note: str) -> tuple[str, dict]:
    """Send the customer's request with the session's scenario at list prices.

    Returns ("sent", {}), ("invalid", field → code), ("throttled", {"minutes": n}) or ("down", {})."""
    db = storage.get_store()
    if db is None:
        return "down", {}
    try:
        proposals.submit_request(db, quote.public_copy(session.scenario()), name, company, contact, note,
                                 lang=session.language(), browser=browser_id(), client=storage.client_address())
    except proposals.InvalidRequest as err:
        return "invalid", err.errors
    except proposals.Throttled as err:
        return "throttled", {"minutes": max(1, round(err.wait_s / 60))}
    st.session_state[KEY_SENT] = (name.strip(), contact.strip())
    return "sent", {}
