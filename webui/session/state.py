"""Per-session state: the current scenario, language and display currency, kept in step with the URL.

The scenario lives in ``st.session_state`` once, as a validated Scenario, and this module is
the only code that writes it (and the preset it came from) there: :func:`change` applies one
field through :func:`costmodel.scenario.changes.with_change`; :func:`replace` and :func:`load_preset`
put a whole scenario in. Widgets show the scenario and never hold a second copy that must be
kept in step: their keys carry the scenario's *revision* (:func:`widget_key`), which every
wholesale replacement, repair or refusal increments, so every widget starts again from the
scenario's value without any key being popped. The URL carries the scenario as
``?p=<preset>&s=<token>`` (see :mod:`webui.session.share`); language and currency are bound widgets
(``?lang=``, ``?cur=``, ``?fx=``). A broken link shows a message and falls back to defaults.

A new session starts from its language's defaults (:mod:`costmodel.scenario.locale_defaults`: China's in
Chinese); a language switch moves only what is still a default — the scenario's untouched fields
while it came from a preset (not a link, a load or an import), and the display currency until the
user picks one — and the exchange rate starts again whenever its two currencies change.
"""

from __future__ import annotations

import logging
import urllib.parse

import streamlit as st

import costmodel
from costmodel.scenario import locale_defaults
from costmodel.scenario.changes import with_change
from webui.i18n.money import CURRENCIES, MAX_RATE, MIN_RATE, SYMBOLS, Money, default_rate
from webui.i18n.translator import Translator, language_from_locale
from webui.session import older_format, quote, recomputed, share, storage

log = logging.getLogger(__name__)

KEY_SCENARIO = "scenario"
KEY_PRESET = "preset"
KEY_REVISION = "scenario_rev"
REVISION_SEP = "~"
KEY_LINK_ERROR = "link_error"
KEY_LANG = "lang"
KEY_CUR = "cur"
KEY_FX = "fx"
_KEY_LAST_LANG = "lang_last"
KEY_FOLLOWS = "defaults_follow_lang"  # the scenario started from defaults: untouched ones follow the language
KEY_CUR_CHOSEN = "cur_chosen"  # the display currency was chosen (the widget, or a link's ?cur=)
KEY_TOUCHED = "fields_touched"  # scenario paths the user set through a widget since the last preset
KEY_DEFAULTS_MOVED = "defaults_moved"  # the language whose defaults a switch just put in
KEY_FX_PAIR = "fx_pair"  # (model currency, display currency) the rate in KEY_FX converts between
DEFAULT_PRESET = "seed-intro-32xA100"
LANGUAGE_NAMES = {"en": "English", "zh": "中文"}  # each in its own language: the same in both UIs


def init() -> None:
    """Load the scenario from the URL once per session (or the default preset)."""
    if KEY_SCENARIO in st.session_state:
        return
    params = st.query_params
    st.session_state[KEY_CUR_CHOSEN] = params.get(KEY_CUR) in CURRENCIES  # a link's currency is kept
    if params.get("t"):
        _open_shared(params.get("t"))
        return
    preset = params.get("p", DEFAULT_PRESET)
    token = params.get("s")
    linked = "p" in params or bool(token)
    try:
        # no link at all: today's preset; a link (even ?p= alone) keeps the scenario it was made with
        scenario = older_format.open_link(preset, token) if linked else share.preset_scenario(preset)
    except share.LinkError as exc:
        log.warning("broken share link: %s", exc)
        st.session_state[KEY_LINK_ERROR] = exc  # shown in the page's language (labels.error_text)
        preset, scenario, linked = DEFAULT_PRESET, share.preset_scenario(DEFAULT_PRESET), False
    if not linked:  # a new session starts from its language's defaults (China's in Chinese)
        scenario = locale_defaults.localize(scenario, language())
    st.session_state[KEY_FOLLOWS] = not linked  # a link's numbers stay exactly as sent, in any language
    st.session_state[KEY_PRESET] = preset
    st.session_state[KEY_SCENARIO] = scenario


def _open_shared(token: str) -> None:
    """A read-only link ``?t=<token>``: the one scenario version it grants, or the default."""
    db = storage.get_store()
    try:
        if db is None:
            raise storage.store.StoreError("the saved scenarios are not reachable right now", "store_down")
        info = db.open_share_token(token)
        scenario = info.scenario()
    except Exception as exc:  # NotFound, an unreachable store, or a document the schema now refuses
        log.warning("share token refused: %s", type(exc).__name__)
        known = isinstance(exc, LookupError | storage.store.StoreError)
        st.session_state[KEY_LINK_ERROR] = exc if known else share.LinkError("this link is not valid", "link_not_valid")
        st.session_state[KEY_PRESET] = DEFAULT_PRESET
        st.session_state[KEY_SCENARIO] = locale_defaults.localize(share.preset_scenario(DEFAULT_PRESET), language())
        st.session_state[KEY_FOLLOWS] = True
        return
    st.session_state[KEY_FOLLOWS] = False
    st.session_state[KEY_PRESET] = share.BLANK
    st.session_state[KEY_SCENARIO] = scenario
    storage.set_origin(info, shared=True)
    recomputed.remember(info)  # figures the current model changed since the version was saved


def shared_view() -> dict | None:
    """The read-only shared version this session shows unchanged, else None."""
    o = storage.origin()
    if o and o.get("shared") and scenario().model_dump(mode="json") == o["document"]:
        return o
    return None


def scenario() -> costmodel.Scenario:
    """The session's current, valid scenario."""
    return st.session_state[KEY_SCENARIO]


def preset() -> str:
    return st.session_state[KEY_PRESET]


def revision() -> int:
    """How many times the scenario was put in from outside its widgets (0 for a new session)."""
    return st.session_state.get(KEY_REVISION, 0)


def widget_key(name: str) -> str:
    """``name`` for the scenario's current revision: ``name`` itself at revision 0, else ``name~<rev>``.

    A widget keyed so shows the scenario's value again after every :func:`replace` (a new key is
    a new widget, built from the scenario), with no key popped.
    """
    rev = revision()
    return f"{name}{REVISION_SEP}{rev}" if rev else name


def refresh() -> None:
    """Let every widget show the scenario's values again (a new revision)."""
    st.session_state[KEY_REVISION] = revision() + 1


def replace(new: costmodel.Scenario, preset_id: str | None = None, pin: bool = True) -> None:
    """Put a whole scenario in (a load, an import, a save, a price book); ``preset_id``: the preset
    it now counts as (``share.BLANK`` for anything not a preset), else unchanged. ``pin``: its values
    stay through language switches (a loaded, imported, saved or priced scenario); False for an
    edit in place (a reset of price edits), which leaves the untouched defaults following."""
    if preset_id is not None:
        st.session_state[KEY_PRESET] = preset_id
    st.session_state[KEY_SCENARIO] = new
    if pin:
        st.session_state[KEY_FOLLOWS] = False
    refresh()


def set_scenario(new: costmodel.Scenario) -> None:
    """Same as :func:`replace` with the preset unchanged."""
    replace(new)


def change(path: str, value) -> tuple[str, ...]:
    """Set one scenario field from its widget (repairing what it makes inconsistent): returns the
    paths repaired. Raises :class:`costmodel.ScenarioError` and keeps the scenario when invalid.

    A clean change keeps the revision (the widget already shows the value: it keeps its focus);
    a repair starts a new one, so the repaired fields' widgets show their new values.
    """
    done = with_change(scenario(), path, value)
    st.session_state[KEY_SCENARIO] = done.scenario
    st.session_state[KEY_TOUCHED] = st.session_state.get(KEY_TOUCHED, frozenset()) | {path}
    if done.repaired:
        refresh()
    return done.repaired


def load_preset(preset_id: str) -> None:
    """Start again from a preset (or the blank scenario), with the current language's defaults."""
    replace(locale_defaults.localize(share.preset_scenario(preset_id), language()), preset_id)
    st.session_state[KEY_FOLLOWS] = True
    st.session_state[KEY_TOUCHED] = frozenset()


def on_language() -> None:
    """The language control changed; a click on the selected language keeps it (never none)."""
    old = st.session_state.get(_KEY_LAST_LANG)
    if st.session_state.get(KEY_LANG) not in LANGUAGE_NAMES:
        st.session_state[KEY_LANG] = old or default_language()
    new = st.session_state[KEY_LANG]
    st.session_state[_KEY_LAST_LANG] = new
    st.query_params[KEY_LANG] = new  # also on pages that stop early
    if old in LANGUAGE_NAMES and old != new:
        _follow_language(old, new)


def _follow_language(old: str, new: str) -> None:
    """After a switch from ``old`` to ``new``: the untouched defaults (scenario, display currency)
    become ``new``'s; the user's own choices, a link's or a loaded scenario's values stay."""
    before = scenario()
    if st.session_state.get(KEY_FOLLOWS):
        moved = locale_defaults.follow(scenario(), share.preset_scenario(preset()), old, new,
                                       keep=st.session_state.get(KEY_TOUCHED, frozenset()))
        if moved != scenario():
            st.session_state[KEY_SCENARIO] = moved
            refresh()
    if not st.session_state.get(KEY_CUR_CHOSEN):
        st.session_state[KEY_CUR] = default_currency()
    align_rate()
    if scenario() != before:
        st.session_state[KEY_DEFAULTS_MOVED] = new  # said once, in the new language (moved_notice)


def moved_notice(t: Translator) -> str | None:
    """What the last language switch moved to the new language's defaults (said once), else None."""
    lang = st.session_state.pop(KEY_DEFAULTS_MOVED, None)
    if lang is None:
        return None
    d = locale_defaults.defaults(lang)
    power = d.money.get("facility.electricity_price_per_kwh")
    return t(f"defaults.moved_{lang}", power=f"{SYMBOLS[d.currency]}{power.typical:.2f}" if power else "")


def sync_url() -> None:
    """Write the current scenario and language into the URL (called at the end of every run)."""
    if st.query_params.get(KEY_LANG) != language():
        st.query_params[KEY_LANG] = language()
    st.session_state[_KEY_LAST_LANG] = language()
    if quote.hidden(scenario()):  # a customer's address bar never carries a quote's prices
        if "s" in st.query_params:
            del st.query_params["s"]
        return  # a read-only link keeps its short token; changes stay in this tab
    if st.query_params.get("t"):
        if shared_view():
            return  # a read-only link stays the short token while nothing is changed
        del st.query_params["t"]
    token = share.encode(scenario(), preset())
    if st.query_params.get("p") != preset():
        st.query_params["p"] = preset()
    if token:
        if st.query_params.get("s") != token:
            st.query_params["s"] = token
    elif "s" in st.query_params:
        del st.query_params["s"]


def share_url() -> str:
    """The share link of the current state: scenario, language, currency and rate."""
    parts = [f"p={preset()}"]
    token = share.encode(quote.public_copy(scenario()), preset())  # anyone can read a link: list prices
    if token:
        parts.append(f"s={token}")
    m = money()
    parts += [f"lang={language()}", f"cur={m.currency}", f"fx={m.rate:g}"]
    try:
        base = (st.context.url or "").split("?", 1)[0]
    except Exception:
        base = ""
    return f"{base}?{'&'.join(parts)}"


def link_url(query: str) -> str:
    """An absolute link to the app's default page (Compare) with ``query``: ``https://host/?query``."""
    try:
        parts = urllib.parse.urlsplit(st.context.url or "")
        base = f"{parts.scheme}://{parts.netloc}/" if parts.netloc else ""
    except Exception:
        base = ""
    return f"{base}?{query}"


def default_language() -> str:
    try:
        return language_from_locale(st.context.locale)
    except Exception:
        return "en"


def _bound(key: str) -> str | None:
    """A bound widget's value: session state once the widget exists, else the URL on first run."""
    value = st.session_state.get(key)
    return value if value is not None else st.query_params.get(key)


def language() -> str:
    lang = _bound(KEY_LANG)
    return lang if lang in ("en", "zh") else default_language()


def translator() -> Translator:
    return Translator(language())


def model_currency() -> str:
    """The currency the model computes the scenario in (its price book's)."""
    return costmodel.catalog.loader.load_catalog().price_book(scenario().price_book).currency


def money() -> Money:
    """The display formatter for the current currency and exchange rate."""
    model = model_currency()
    cur = _bound(KEY_CUR)
    if cur not in CURRENCIES:
        cur = default_currency()
    try:
        rate = float(_bound(KEY_FX))
    except (TypeError, ValueError):
        rate = float("nan")
    if not MIN_RATE <= rate <= MAX_RATE:  # also false for NaN
        rate = default_rate(model, cur)
    return Money(model, cur, rate, language())


def default_currency() -> str:
    """The display currency of the current language (CNY in Chinese, else USD) until the user picks one."""
    return locale_defaults.defaults(language()).currency or "USD"


def _currency() -> str:
    cur = _bound(KEY_CUR)
    return cur if cur in CURRENCIES else default_currency()


def reset_rate() -> None:
    """The user picked a display currency: keep it across language switches, start from its reference rate."""
    st.session_state[KEY_CUR_CHOSEN] = True
    st.session_state[KEY_FX] = default_rate(model_currency(), st.session_state[KEY_CUR])
    st.session_state[KEY_FX_PAIR] = (model_currency(), st.session_state[KEY_CUR])


def align_rate() -> None:
    """Keep the exchange rate meaning what it says: when the model or the display currency changed
    under it (a price book in another currency, a language switch), start again from the reference
    rate of the new pair (a rate typed for USD → EUR says nothing about CNY → EUR). The first run
    keeps a link's ``?fx=``. Call before the rate's widget exists."""
    pair = (model_currency(), _currency())
    old = st.session_state.get(KEY_FX_PAIR)
    st.session_state[KEY_FX_PAIR] = pair
    if old is not None and tuple(old) != pair:
        st.session_state[KEY_FX] = default_rate(*pair)


__all__ = ["CURRENCIES", "change", "init", "load_preset", "money", "replace", "revision", "scenario", "set_scenario",
           "sync_url", "translator", "widget_key"]
