"""The app's handle on the store and on who is signed in.

One :class:`store.Store` per server process (``st.cache_resource``); the owner of the session
is ``oidc:<email>`` after ``st.login`` (when an identity provider is configured in secrets),
``local:<name>`` after a password sign-in against the accounts file, or ``None`` — a public
customer session, which sees only public prices and its own browser state.
"""

from __future__ import annotations

import functools
import logging
import math
import threading
from collections.abc import Callable, Mapping

import streamlit as st

import store
import store.policy
from store import accounts, config, sessions, throttle

log = logging.getLogger(__name__)

KEY_USER = "sales_user"
KEY_SID = "sales_session"  # the store's id of this browser's sign-in session (never the cookie value)
KEY_HANDOFF = "sales_handoff"  # one-time value the page exchanges for the HttpOnly cookie
KEY_COOKIE_READ = "sales_cookie_read"
KEY_REFUSED = "owner_refused"  # a locale key: why the sales session or an action of it ended
KEY_LEAVE = "sales_leave"  # set by a sign-out: the page clears the cookie and reloads into a fresh session
_KEEP_ON_SIGN_OUT = ("lang", "cur", "fx", KEY_LEAVE, "notice")
KEY_ORIGIN = "stored_origin"  # where the session's scenario came from: {"id", "version", "name", "shared"}


@st.cache_resource(show_spinner=False)
def _checks() -> threading.BoundedSemaphore:
    """At most the policy's number of password checks at once in this process (argon2id: 64 MiB each)."""
    return threading.BoundedSemaphore(store.policy.policy().max_parallel_checks)


@st.cache_resource(show_spinner=False)
def _open() -> store.Store:
    return store.open_store()


def get_store() -> store.Store | None:
    """The store, or None (logged) when it cannot be opened; pages then say so and keep working."""
    try:
        return _open()
    except Exception as exc:
        log.error("cannot open the store: %s", exc)
        return None


def oidc_configured() -> bool:
    """True when ``[auth]`` is set in Streamlit's secrets, so ``st.login`` can be used."""
    try:
        return "auth" in st.secrets
    except Exception:
        return False


def oidc_allowed(info: Mapping, rules: Mapping) -> bool:
    """Whether an identity-provider account may use sales mode: its e-mail is in
    ``rules["allowed_emails"]`` or its domain in ``rules["allowed_domains"]`` (secrets section
    ``[sales]``), not marked unverified, and it has a subject. No rules: nobody (fail closed).

    >>> oidc_allowed({"sub": "1", "email": "Ann@Example.com"}, {"allowed_domains": ["example.com"]})
    True
    >>> oidc_allowed({"sub": "1", "email": "ann@gmail.com", "email_verified": True}, {})
    False
    """
    email = str(info.get("email") or "").strip().lower()
    if not info.get("sub") or "@" not in email or info.get("email_verified") is False:
        return False
    emails = {str(e).strip().lower() for e in rules.get("allowed_emails", ())}
    domains = {str(d).strip().lower().lstrip("@") for d in rules.get("allowed_domains", ())}
    return email in emails or email.rsplit("@", 1)[1] in domains


def oidc_signed_in() -> bool:
    """True when the identity provider has signed this browser in (allowed for sales or not)."""
    try:
        return bool(st.user.is_logged_in)
    except Exception:
        return False


def _sales_rules() -> Mapping:
    try:
        return st.secrets.get("sales", {})
    except Exception:
        return {}


def owner() -> str | None:
    """The signed-in owner id, or None for a public customer session."""
    if oidc_configured():
        try:
            if st.user.is_logged_in and oidc_allowed(st.user, _sales_rules()):
                return f"oidc:{st.user.get('iss', '')}|{st.user.get('sub')}"  # the stable subject
        except Exception:
            return None
        return None
    user = st.session_state.get(KEY_USER)
    if user and not accounts.exists(config.users_file(), user):  # removed since: the session ends
        st.session_state.pop(KEY_USER, None)
        return None
    return f"local:{user}" if user else None


def display_name() -> str:
    """The signed-in user's name for the page ('' for customers)."""
    who = owner()
    if who and who.startswith("oidc:"):
        return str(st.user.get("email") or st.user.get("name") or who.rsplit("|", 1)[-1])
    return who.split(":", 1)[1] if who else ""


def client_address() -> str:
    """The client's address as the server saw it ('' when unknown, e.g. loopback): what the sign-in
    throttle and the PDF queue count per client."""
    try:
        address = st.context.ip_address
    except Exception:
        return ""
    return address if isinstance(address, str) else ""


def sign_in(username: str, password: str) -> tuple[bool, str, float]:
    """Check a password sign-in; returns (ok, message key, minutes or seconds to wait when throttled).

    Failures count per (user name, client address) with growing delays, per address across names
    and per name across addresses, in the store (shared by replicas; :mod:`store.throttle`); a
    throttled attempt is refused without checking the password.
    """
    db = get_store()
    if db is None:
        return False, "auth.store_down", 0.0
    name = (username or "").strip().lower()[:64]
    pol = store.policy.policy()
    keys, clear = throttle.keys_for(name, client_address(), pol.pair_backoff, pol.max_client_failures,
                                    pol.max_name_failures)
    wait, attempt = db.begin_login(keys)  # counted before the check: parallel attempts cannot all pass
    if wait > 0:
        return (False, "auth.throttled", math.ceil(wait / 60)) if wait > 60 else \
            (False, "auth.throttled_s", float(math.ceil(wait)))
    with _checks():
        ok = accounts.verify(config.users_file(), name, password or "")
    db.finish_login(attempt, ok, clear)
    if not ok:
        return False, "auth.failed", 0.0
    sid, handoff = sessions.begin(db, name)  # kept across reloads by the cookie the page now asks for
    st.session_state.update({KEY_USER: name, KEY_SID: sid, KEY_HANDOFF: handoff, KEY_COOKIE_READ: True})
    return True, "auth.welcome", 0.0


def _session_live() -> bool:
    """Whether this browser's password sign-in session is still live in the store (True for
    identity-provider sign-ins, which Streamlit's own cookie keeps)."""
    user, sid = st.session_state.get(KEY_USER), st.session_state.get(KEY_SID)
    if oidc_configured() or not user:
        return True
    db = get_store()
    return bool(sid) and db is not None and sessions.is_live(db, sid, user)


def restore() -> None:
    """Run first on every rerun: resume a signed-in session from the cookie after a reload, and
    end this one when it was signed out elsewhere, expired, or its account was removed."""
    if oidc_configured():
        return  # Streamlit's own auth cookie keeps an identity-provider sign-in
    user = st.session_state.get(KEY_USER)
    if user:
        if not (_session_live() and accounts.exists(config.users_file(), user)):
            log.info("sales session of %s ended", user)
            sign_out(revoke=False)
            st.session_state.pop(KEY_LEAVE, None)  # no reload: the message must stay in view; state is cleared
            st.session_state[KEY_REFUSED] = "sess.ended"
        return
    if st.session_state.get(KEY_COOKIE_READ):
        return
    st.session_state[KEY_COOKIE_READ] = True
    try:
        token = st.context.cookies.get(sessions.settings().cookie)
    except Exception:
        token = None
    db = get_store() if token else None
    found = sessions.resume(db, token) if db is not None else None
    if found and accounts.exists(config.users_file(), found[1]):
        st.session_state[KEY_SID], st.session_state[KEY_USER] = found


def page_script() -> str | None:
    """The JavaScript this run must send to the browser, once: hand the sign-in over to the
    cookie route, or (after a sign-out) clear the cookie and reload into a fresh session."""
    handoff = st.session_state.pop(KEY_HANDOFF, None)
    if handoff:
        return ("<script>fetch('/auth/session',{method:'POST',credentials:'same-origin',"
                f"headers:{{'Content-Type':'text/plain'}},body:{handoff!r}}})</script>")
    if st.session_state.pop(KEY_LEAVE, None):
        return ("<script>fetch('/auth/sign-out',{method:'POST',credentials:'same-origin'})"
                ".finally(()=>window.location.replace(window.location.pathname))</script>")
    return None


def sign_out(revoke: bool = True) -> None:
    """End the sales session everywhere (its server-side session is revoked, so every tab and
    replica holding its cookie is signed out) and forget everything of it — identity, scenario (it
    may hold a price book), links, messages — but the language and currency; the URL drops the
    scenario too, and the page then clears the cookie and reloads into a fresh session."""
    sid = st.session_state.get(KEY_SID)
    db = get_store() if (revoke and sid) else None
    if db is not None:
        sessions.revoke(db, sid)
    st.session_state[KEY_LEAVE] = True
    for key in [k for k in st.session_state if k not in _KEEP_ON_SIGN_OUT]:
        del st.session_state[key]
    st.session_state[KEY_COOKIE_READ] = True  # its cookie is revoked: nothing to resume
    for param in ("p", "s", "t"):
        if param in st.query_params:
            del st.query_params[param]
    if oidc_configured():
        try:
            if st.user.is_logged_in:
                st.logout()
        except Exception:
            log.exception("logout failed")


def as_owner(expected: str | None) -> Callable[[Callable], Callable]:
    """Wrap a page callback so that it runs only while ``expected`` is still the signed-in owner.

    A callback outlives the run that created it (Streamlit keeps it with its widget); after a
    sign-out, a sign-in as someone else or ``python -m store remove-user``, one forged or late
    message must not act for the former owner. Refused calls do nothing but leave a flag
    (:data:`KEY_REFUSED`) that the page turns into a message.
    """
    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def run(*args, **kwargs):
            now = owner()
            if expected is None or now != expected or not _session_live():
                log.warning("refused %s: the owner it was created for is no longer signed in", fn.__name__)
                st.session_state[KEY_REFUSED] = "sess.refused"
                return None
            return fn(*args, **kwargs)
        return run
    return wrap


def origin() -> dict | None:
    """Where the current scenario was loaded from (None: a preset, a link or an import)."""
    return st.session_state.get(KEY_ORIGIN)


def set_origin(info: store.VersionInfo | None, shared: bool = False) -> None:
    """Remember the stored scenario version the session's scenario came from."""
    if info is None:
        st.session_state.pop(KEY_ORIGIN, None)
    else:
        st.session_state[KEY_ORIGIN] = {"id": info.scenario_id, "version": info.version, "name": info.name,
                                        "shared": shared, "document": info.document}
