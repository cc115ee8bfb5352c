"""The customer's "request a quote" form: name, company, contact and a note, sent with the scenario at
public list prices (:func:`webui.session.proposal.submit`); every refused field is named, the
confirmation repeats the contact to be used. User text is escaped wherever it is shown."""

from __future__ import annotations

import streamlit as st

from store.proposals import MAX_CHARS
from webui.i18n.text import md_escape
from webui.session import proposal

FIELDS = ("name", "company", "contact", "note")


def errors_text(t, errors: dict[str, str]) -> list[str]:
    """One line per refused field: its label and why, in ``t``'s language (field order of the form)."""
    order = [*FIELDS, "customer", "project", "valid_until"]
    return [t("handoff.field_error", field=t(f"handoff.{field}"), reason=t(f"handoff.reason.{errors[field]}"))
            for field in sorted(errors, key=lambda f: order.index(f) if f in order else len(order))]


def request_form(t) -> None:
    """The form in a bordered box, with the confirmation of a request sent from this session."""
    with st.container(border=True):
        st.subheader(t("handoff.ask_title"))
        st.caption(t("handoff.ask_intro"))
        sent = st.session_state.get(proposal.KEY_SENT)
        if sent is not None:
            st.success(t("handoff.sent", name=md_escape(sent[0]), contact=md_escape(sent[1])),
                       icon=":material/mark_email_read:")
        with st.form("quote_request", clear_on_submit=False):
            left, right = st.columns(2)
            left.text_input(t("handoff.name"), key="qr_name", max_chars=MAX_CHARS["name"])
            right.text_input(t("handoff.company"), key="qr_company", max_chars=MAX_CHARS["company"])
            left.text_input(t("handoff.contact"), key="qr_contact", max_chars=MAX_CHARS["contact"],
                            help=t("handoff.contact_help"))
            st.text_area(t("handoff.note"), key="qr_note", max_chars=MAX_CHARS["note"], height=90)
            pressed = st.form_submit_button(t("handoff.submit"), icon=":material/request_quote:", type="primary")
        if not pressed:
            return
        status, info = proposal.submit(*(st.session_state.get(f"qr_{f}", "") for f in FIELDS))
        if status == "invalid":
            st.error("  \n".join(errors_text(t, info)), icon=":material/error:")
        elif status == "throttled":
            st.warning(t("handoff.throttled", minutes=info["minutes"]), icon=":material/hourglass_top:")
        elif status == "down":
            st.error(t("handoff.down"))
        else:
            st.rerun()  # the confirmation above the form
