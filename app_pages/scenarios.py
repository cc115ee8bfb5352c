"""Scenarios: save, version, compare, share and import/export — the sales engineer's desk.

A public customer session sees only what stays in its browser (import a JSON file, export the
current scenario) and the sign-in; everything stored belongs to the signed-in owner.
"""

from __future__ import annotations

import datetime as dt
import hashlib

import pandas as pd
import streamlit as st

import store
from costmodel.errors import ScenarioError
from costmodel.pipeline.results import differences
from costmodel.scenario.validation import validate_scenario
from store import documents
from webui import compute
from webui.i18n import labels
from webui.i18n.text import md_escape
from webui.panels import scenario_diff
from webui.session import keys, notices, quote, recomputed, share, storage, titles
from webui.session import state as session
from webui.session.older_format import import_scenario as import_file  # remembers an older file's format

t = session.translator()
money = session.money()
db = storage.get_store()
owner = storage.owner()


def _when(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M ") + t("links.utc")


def _load_into_session(info: store.VersionInfo, shared: bool = False) -> None:
    session.replace(info.scenario(), share.BLANK)  # a new revision: the list picks what the session now holds
    storage.set_origin(info, shared=shared)


st.title(t("scn.title"))
notices.show()

# --- import / export: for everyone -----------------------------------------------------------
with st.container(border=True):
    st.subheader(t("scn.io"))
    left, right = st.columns(2)
    with left:
        imported = notices.upload(t, t("scn.import"), "scn_upload", import_file,
                                  help=t("scn.import_help", kb=documents.MAX_IMPORT_BYTES // 1024))
        if imported is not None:
            session.replace(imported, share.BLANK)
            storage.set_origin(None)
            notices.flash("success", t("scn.imported", name=md_escape(imported.name))
                          + notices.read_as(t, "scn_upload"))
            st.rerun()
    with right:
        current = quote.for_export(session.scenario())  # a customer's file: list prices, never the quote
        st.download_button(t("scn.export"), documents.export_scenario(current),
                           file_name="scenario.json", mime="application/json", key="scn_export",
                           icon=":material/download:")
        st.caption(t("scn.export_help", name=md_escape(titles.scenario_title(current, session.preset(), t))))
        if quote.hidden(session.scenario()):
            st.caption(t("quote.export_list"))

# --- sign-in -------------------------------------------------------------------------------
def _sign_in() -> None:
    ok, msg, wait = storage.sign_in(st.session_state.get("auth_user", ""), st.session_state.get("auth_pw", ""))
    st.session_state["auth_pw"] = ""  # the password never outlives the attempt
    if ok:
        notices.flash("success", t(msg, user=md_escape(storage.display_name())))
    else:
        st.session_state["auth_error"] = t(msg, minutes=int(wait), seconds=int(wait))  # the key names its unit


if owner is None:
    with st.container(border=True):
        st.subheader(t("auth.title"))
        st.caption(t("auth.why"))
        if storage.oidc_configured():
            if storage.oidc_signed_in():  # signed in at the provider, but not a sales account here
                st.warning(t("auth.not_allowed"), icon="🔒")
                if st.button(t("auth.sign_out"), key="auth_oidc_out"):
                    storage.sign_out()
                    st.rerun()
            elif st.button(t("auth.sso"), key="auth_sso", icon=":material/login:"):
                st.login()
        else:
            with st.form("auth_form", clear_on_submit=False):
                st.text_input(t("auth.user"), key="auth_user", max_chars=64)
                st.text_input(t("auth.password"), type="password", key="auth_pw", max_chars=256)
                st.form_submit_button(t("auth.submit"), on_click=_sign_in)
            if "auth_error" in st.session_state:
                st.error(st.session_state.pop("auth_error"), icon="🔒")
    st.stop()

if db is None:
    st.error(t("auth.store_down"))
    st.stop()

top = st.columns([4, 1])
top[0].caption(t("scn.signed_in", user=md_escape(storage.display_name())))
if top[1].button(t("auth.sign_out"), key="auth_out", icon=":material/logout:"):
    storage.sign_out()
    st.rerun()

# --- save the current scenario ---------------------------------------------------------------
origin = storage.origin()
mine = {s.id: s for s in db.list_scenarios(owner)}
own_origin = origin if origin and not origin.get("shared") and origin.get("id") in mine else None
with st.container(border=True):
    st.subheader(t("scn.save"))
    if own_origin:
        changed = session.scenario().model_dump(mode="json") != own_origin["document"]
        st.caption(t("scn.origin", name=md_escape(mine[own_origin["id"]].name), version=own_origin["version"])
                   + (" · " + t("scn.modified") if changed else ""))
    cols = st.columns([3, 3, 2, 2])
    # keyed by the scenario's name, so the field follows a load, an import or an edit elsewhere
    shown_name = titles.scenario_title(session.scenario(), session.preset(), t)  # own, a preset's here, or made
    name_key = "scn_name_" + hashlib.sha256(shown_name.encode()).hexdigest()[:12]
    cols[0].text_input(t("scn.name"), value=shown_name, max_chars=200, key=name_key)
    cols[1].text_input(t("scn.note"), max_chars=200, key="scn_note", placeholder=t("scn.note_ph"))

    @storage.as_owner(owner)
    def _save(as_new: bool) -> None:
        # the fields' values as the click sent them (a closure would hold the previous run's)
        name = (st.session_state.get(name_key) or "").strip() or session.scenario().name
        note = st.session_state.get("scn_note") or ""
        try:
            doc = {**session.scenario().model_dump(mode="json"), "name": name}
            info = db.save_scenario(owner, validate_scenario(doc), None if as_new else own_origin["id"], note=note)
        except (store.StoreError, ScenarioError) as exc:
            notices.flash("error", t("scn.save_bad", error=md_escape(labels.error_text(t, exc)[:300])))
            return
        session.replace(info.scenario())  # a new revision: the list picks what was just saved
        storage.set_origin(info)
        st.session_state["scn_note"] = ""  # a note belongs to the version it was saved with
        notices.flash("success", t("scn.saved", name=md_escape(info.name), version=info.version))

    if own_origin:
        cols[2].button(t("scn.save_version"), key="scn_save_v", on_click=_save, args=(False,), type="primary",
                       icon=":material/save:")
    cols[3 if own_origin else 2].button(t("scn.save_new"), key="scn_save_new", on_click=_save, args=(True,),
                                        type="secondary" if own_origin else "primary", icon=":material/add:")

# --- my scenarios ----------------------------------------------------------------------------
st.subheader(t("scn.mine"))
if not mine:
    st.info(t("scn.none"))
else:
    table = pd.DataFrame([{t("scn.col_name"): s.name, t("scn.col_versions"): s.latest_version,
                           t("scn.col_updated"): _when(s.updated_at)} for s in mine.values()])
    st.dataframe(table, hide_index=True, width="stretch")
    ids = list(mine)
    default = ids.index(own_origin["id"]) if own_origin else 0
    sel = keys.selectbox(st, t("scn.pick"), ids, name=session.widget_key("scn_pick"), index=default,
                         format_func=lambda i: f"{mine[i].name} · {t('links.version', n=mine[i].latest_version)}")
    picked = mine[sel]

    @storage.as_owner(owner)
    def _load(version: int | None = None) -> None:
        info = db.load(owner, picked.id, version)
        _load_into_session(info)
        recomputed.remember(info)  # figures the current model changed since it was saved
        notices.flash("success", t("scn.loaded", name=md_escape(info.name), version=info.version))

    @storage.as_owner(owner)
    def _duplicate() -> None:
        info = db.duplicate(owner, picked.id)
        notices.flash("success", t("scn.duplicated", name=md_escape(info.name)))

    @storage.as_owner(owner)
    def _delete() -> None:
        db.delete(owner, picked.id)
        if own_origin and own_origin["id"] == picked.id:
            storage.set_origin(None)
        st.session_state["scn_undo"] = picked.id
        notices.flash("warning", t("scn.deleted", name=md_escape(picked.name)))

    @storage.as_owner(owner)
    def _rename() -> None:
        new = st.session_state.get("scn_rename", "").strip()
        try:
            info = db.rename(owner, picked.id, new)
        except (store.StoreError, ScenarioError) as exc:
            notices.flash("error", t("scn.save_bad", error=md_escape(labels.error_text(t, exc)[:300])))
            return
        if own_origin and own_origin["id"] == picked.id:
            _load_into_session(info)
        notices.flash("success", t("scn.renamed", name=md_escape(info.name)))

    acts = st.columns(4)
    acts[0].button(t("scn.load"), key="scn_load", on_click=_load, icon=":material/upload_file:")
    acts[1].button(t("scn.duplicate"), key="scn_dup", on_click=_duplicate, icon=":material/content_copy:")
    acts[2].button(t("scn.delete"), key="scn_del", on_click=_delete, icon=":material/delete:")
    with acts[3].popover(t("scn.rename"), icon=":material/edit:"):
        st.text_input(t("scn.name"), value=picked.name, max_chars=200, key="scn_rename")
        st.button(t("scn.rename_do"), key="scn_rename_do", on_click=_rename)

    # versions
    with st.expander(t("scn.versions", name=md_escape(picked.name)), expanded=True):
        versions = db.versions(owner, picked.id)
        st.dataframe(pd.DataFrame([{t("scn.col_version"): v.version, t("scn.col_name"): v.name,
                                    t("scn.col_note"): v.note, t("scn.col_saved"): _when(v.created_at)}
                                   for v in versions]), hide_index=True, width="stretch")
        vnums = [v.version for v in versions]  # newest first (the store's order): a new save is picked at once
        vname = lambda v: t("links.version", n=v)  # noqa: E731
        vkey = keys.label_key("scn_vpick", [picked.id, *map(vname, vnums)])
        vsel = st.selectbox(t("scn.pick_version"), vnums, key=vkey, format_func=vname)
        vcols = st.columns(3)
        vcols[0].button(t("scn.load_version"), key="scn_vload", on_click=_load, args=(vsel,))

        @storage.as_owner(owner)
        def _restore() -> None:
            try:
                info = db.restore_version(owner, picked.id, vsel)
            except store.StoreError as exc:
                notices.flash("error", t("scn.save_bad", error=md_escape(labels.error_text(t, exc))))
                return
            _load_into_session(info)
            notices.flash("success", t("scn.restored", version=vsel, new=info.version))

        vcols[1].button(t("scn.restore"), key="scn_vrestore", on_click=_restore,
                        disabled=vsel == picked.latest_version)
        if vcols[2].toggle(t("scn.show_json"), key="scn_vjson"):
            st.json(db.load(owner, picked.id, vsel).document, expanded=False)

    # read-only links: always in view; a new link stays shown until it is copied and dismissed
    with st.container(border=True):
        st.markdown(f"**{t('scn.share')}**")
        st.caption(t("scn.share_help"))
        pin = st.toggle(t("scn.share_pin", version=vsel), key=keys.label_key("scn_share_pin", [str(vsel)]))

        @storage.as_owner(owner)
        def _new_link(scenario_id: str, version: int | None) -> None:
            token = db.create_share_token(owner, scenario_id, version)
            st.session_state["scn_new_link"] = session.link_url(f"t={token}&lang={t.lang}")

        st.button(t("scn.share_new"), key="scn_share_new", icon=":material/link:", on_click=_new_link,
                  args=(picked.id, vsel if pin else None), disabled=bool(st.session_state.get("scn_new_link")))
        if st.session_state.get("scn_new_link"):
            st.success(t("scn.share_made"))
            st.code(st.session_state["scn_new_link"], language=None, wrap_lines=True)
            st.button(t("links.copied"), key="scn_share_done", icon=":material/done:",
                      on_click=lambda: st.session_state.pop("scn_new_link", None))
        live = db.share_tokens(owner, picked.id)
        st.caption(t("links.live", n=len(live)))
        for tok in live:
            row = st.columns([3, 1])
            what = t("scn.share_latest") if tok["version"] is None else t("links.version", n=tok["version"])
            row[0].caption(f"`{tok['id']}…` · {what} · {_when(tok['created_at'])}")

            @storage.as_owner(owner)
            def _revoke(token_id: str) -> None:
                db.revoke_share_token(owner, picked.id, token_id)
                st.session_state.pop("scn_new_link", None)
                notices.flash("info", t("scn.revoked"))

            row[1].button(t("scn.revoke"), key=f"scn_revoke_{tok['id']}", on_click=_revoke, args=(tok["id"],))

# undo of the last delete, and the bin
if st.session_state.get("scn_undo"):
    @storage.as_owner(owner)
    def _undo() -> None:
        db.undelete(owner, st.session_state.pop("scn_undo"))
        notices.flash("success", t("scn.undone"))

    st.button(t("scn.undo"), key="scn_undo_btn", on_click=_undo, icon=":material/undo:")
binned = db.list_scenarios(owner, deleted=True)
if binned:
    with st.expander(t("scn.bin", n=len(binned))):
        for s in binned:
            row = st.columns([4, 1])
            row[0].markdown(f"{md_escape(s.name)} · {t('links.version', n=s.latest_version)} · {_when(s.deleted_at)}")
            row[1].button(t("scn.undelete"), key=f"scn_undel_{s.id}", on_click=storage.as_owner(owner)(db.undelete),
                          args=(owner, s.id))

# --- compare two scenarios or versions -------------------------------------------------------
st.subheader(t("scn.compare"))
CURRENT = "current"
options = [CURRENT, *[f"{s.id}:{v}" for s in mine.values() for v in range(s.latest_version, 0, -1)][:400]]


def _label(opt: str) -> str:
    if opt == CURRENT:
        return t("scn.current")
    sid, v = opt.split(":")
    return f"{mine[sid].name} · v{v}"


def _pick(opt: str):
    if opt == CURRENT:
        return session.scenario()
    sid, v = opt.split(":")
    return db.load(owner, sid, int(v)).scenario()


cc = st.columns(2)
# a new save or version changes the options: start again from "current vs the latest saved"
a_opt = keys.selectbox(cc[0], "A", options, name="scn_cmp_a", format_func=_label, keep=False)
b_opt = keys.selectbox(cc[1], "B", options, name="scn_cmp_b", format_func=_label, index=min(1, len(options) - 1),
                       keep=False)
sa, sb = _pick(a_opt), _pick(b_opt)
rows = scenario_diff.assumption_rows(sa.model_dump(mode="json"), sb.model_dump(mode="json"))
if not rows:
    st.info(t("scn.same"))
else:
    st.markdown(f"**{t('scn.diff_assumptions', n=len(rows))}**")
    st.dataframe(pd.DataFrame([{t("scn.col_field"): k, "A": "" if a is None else str(a), "B": "" if b is None
                                else str(b)} for k, a, b in rows]), hide_index=True, width="stretch")
ra = compute.evaluate(compute.key(sa), _scenario=sa)
rb = compute.evaluate(compute.key(sb), _scenario=sb)
diff = differences(ra, rb)
st.markdown(f"**{t('scn.diff_results')}**")
fabric_names = labels.fabric_names(t)
shown = pd.DataFrame({
    t("scn.col_fabric"): [fabric_names.get(f, f) for f in diff["fabric"]],
    f"TCO A ({money.currency})": [money(x) if x is not None else "—" for x in diff["tco_a"]],
    f"TCO B ({money.currency})": [money(x) if x is not None else "—" for x in diff["tco_b"]],
    "Δ (B − A)": [money.delta(x) if x is not None else "—" for x in diff["delta"]],
    t("scn.col_days") + " A": [f"{x:.1f}" if x is not None else "—" for x in diff["run_days_a"]],
    t("scn.col_days") + " B": [f"{x:.1f}" if x is not None else "—" for x in diff["run_days_b"]],
})
st.dataframe(shown, hide_index=True, width="stretch")
st.caption(t("scn.books", a=md_escape(labels.price_book_name(t, ra.price_book)),
             b=md_escape(labels.price_book_name(t, rb.price_book))))
