"""Fabric TCO Planner — the Streamlit frame: navigation, the shared sidebar, the URL.

Pages live in ``app_pages/``; they read the session's scenario, call the cached model and
draw. Nothing here computes a cost.
"""

from __future__ import annotations

import logging

import streamlit as st

from webui.i18n import chrome_texts, labels
from webui.i18n.money import CURRENCIES, MAX_RATE, MIN_RATE
from webui.i18n.text import md_escape
from webui.inputs import number_boxes
from webui.reports.brand import brand_or_default
from webui.session import keys, older_format, recomputed, share, storage, titles
from webui.session import state as session

logging.basicConfig(level=logging.INFO)
st.set_page_config(page_title="Fabric TCO Planner", page_icon="🔀", layout="wide")

storage.restore()  # a reload keeps a sales sign-in (cookie); one ended elsewhere ends here too
session.init()
session.align_rate()  # the rate follows a change of model or display currency (before its widget)
t = session.translator()
chrome_texts.style(t)  # Streamlit's Stop button in the page's language
brand = brand_or_default()  # assets/ or the deployment's folder (FABRIC_TCO_ASSETS); its colours: serve.sh
st.logo(str(brand.logo_png_path), size="large")

PAGES = [
    st.Page("app_pages/guided.py", title=t("guided.nav"), icon=":material/assistant_navigation:", url_path="guided"),
    st.Page("app_pages/cluster.py", title=t("nav.cluster"), icon=":material/dns:", url_path="cluster"),
    st.Page("app_pages/compare.py", title=t("nav.compare"), icon=":material/compare_arrows:", url_path="compare",
            default=True),
    st.Page("app_pages/serving.py", title=t("nav.serving"), icon=":material/chat:", url_path="serving"),
    st.Page("app_pages/scale.py", title=t("nav.scale"), icon=":material/show_chart:", url_path="scale"),
    st.Page("app_pages/risk.py", title=t("nav.risk"), icon=":material/casino:", url_path="risk"),
    st.Page("app_pages/assumptions.py", title=t("nav.assumptions"), icon=":material/table_edit:",
            url_path="assumptions"),
    st.Page("app_pages/method.py", title=t("nav.method"), icon=":material/functions:", url_path="method"),
    st.Page("app_pages/report.py", title=t("nav.report"), icon=":material/download:", url_path="report"),
    st.Page("app_pages/scenarios.py", title=t("nav.scenarios"), icon=":material/folder_open:", url_path="scenarios"),
]
if storage.owner() is not None:  # customers never see price books, not even the page's name
    PAGES.append(st.Page("app_pages/price_books.py", title=t("nav.price_books"), icon=":material/sell:",
                         url_path="price-books"))
    PAGES.append(st.Page("app_pages/requests.py", title=t("handoff.nav"), icon=":material/request_quote:",
                         url_path="requests"))
pg = st.navigation(PAGES)
notice = session.moved_notice(t)  # a language switch put in the new language's defaults: say what
if notice:
    st.toast(notice, icon=":material/language:")  # catalog text and sourced data, no user text


def _on_preset(key: str) -> None:
    chosen = st.session_state[key]
    if chosen not in share.preset_ids():  # never a label: keys.label_key keeps labels from coming back
        return
    session.load_preset(chosen)  # a new scenario revision: every widget shows its values


def _preset_label(pid: str) -> str:
    return t(f"preset.{pid}")


with st.sidebar:
    if brand.company(t.lang) != t("app.title"):  # the shipped brand is the product itself: named once
        st.markdown(f"**{md_escape(brand.company(t.lang))}**")
    st.markdown(f"### {t('app.title')}")
    st.caption(t("app.tagline"))
    shared = session.shared_view()
    if shared:
        st.info(t("app.shared", name=md_escape(shared["name"]), version=shared["version"]), icon="🔗")
    if storage.owner():
        st.caption(t("app.signed_in", user=md_escape(storage.display_name())))
    if storage.KEY_REFUSED in st.session_state:
        st.warning(t(st.session_state.pop(storage.KEY_REFUSED)), icon="🔒")
    recomputed.show(t, session.money())  # a loaded version whose figures the current model changed
    older_format.show(t, session.scenario())  # an opened file or link of an older format
    if session.KEY_LINK_ERROR in st.session_state:
        st.warning(t("app.link_error", error=md_escape(labels.error_text(t, st.session_state[session.KEY_LINK_ERROR]))),
                   icon="⚠️")
        if st.button(t("app.dismiss"), key="sb_dismiss"):
            del st.session_state[session.KEY_LINK_ERROR]
            st.rerun()
    ids = share.preset_ids()
    # keyed by the scenario's revision: a load or an import shows its preset without a re-sync
    preset_key = keys.label_key(session.widget_key("sb_preset"), [_preset_label(i) for i in ids])
    st.selectbox(t("app.preset"), ids, format_func=_preset_label, key=preset_key, on_change=_on_preset,
                 index=ids.index(session.preset()) if session.preset() in ids else 0,
                 args=(preset_key,), help=t("app.preset_help"))
    origin = storage.origin()
    if origin and not shared:  # loaded from the store: say which version, and whether it changed since
        st.caption(t("links.from_saved", name=md_escape(origin["name"]), version=origin["version"])
                   + ("" if session.scenario().model_dump(mode="json") == origin["document"]
                      else " · " + t("links.changed_since")))
    elif not shared and titles.changed(session.scenario(), session.preset()):
        st.caption(t("app.modified"))
    custom = session.scenario().custom_price_book
    book = md_escape(custom.name) if custom else labels.base_book_name(t, session.scenario())
    st.caption(t("app.price_book", name=book))
    st.session_state.setdefault(session.KEY_LANG, session.language())  # the URL holds the code (sync_url)
    st.segmented_control(t("app.language"), ["en", "zh"], format_func=session.LANGUAGE_NAMES.get,
                         key=session.KEY_LANG, on_change=session.on_language, selection_mode="single")
    st.selectbox(t("app.currency"), CURRENCIES, key=session.KEY_CUR, bind="query-params",
                 index=CURRENCIES.index(session.default_currency()), on_change=session.reset_rate)
    money = session.money()
    st.session_state.setdefault(session.KEY_FX, money.rate)
    fx_label = t("app.fx", model=money.model_currency, cur=money.currency)
    # no browser-side min/max: its refusal is in English; the server names the range instead
    fx = st.number_input(fx_label, key=session.KEY_FX, format="%.4f", bind="query-params", help=t("app.fx_help"))
    number_boxes.refuse_rate(t, fx_label, fx, MIN_RATE, MAX_RATE, money.rate)
    with st.expander(t("app.share")):
        st.caption(t("app.share_help"))
        if session.scenario().custom_price_book is not None:
            st.caption(t("quote.link_list"))
        st.code(session.share_url(), language=None, wrap_lines=True)

    script = storage.page_script()
    if script:  # the sign-in cookie hand-over, or the sign-out reload (no user text in it)
        st.html(script, unsafe_allow_javascript=True)

pg.run()
session.sync_url()
