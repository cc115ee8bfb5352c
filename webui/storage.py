"""The app's handle on the store and on who is signed in.

One :class:`store.Store` per server process (``st.cache_resource``); the owner of the session
is ``oidc:<email>`` after ``st.login`` (when an identity provider is configured in secrets),
``local:<name>`` after a password sign-in against the accounts file, or ``None`` — a public
customer session, which sees only public prices and its own browser state.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Mapping

import streamlit as st

import store
import store.policy
from store import accounts, config

log = logging.getLogger(__name__)

KEY_USER = "sales_user"
_KEEP_ON_SIGN_OUT = ("lang", "cur", "fx")
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


def _client() -> str:
    try:
        return str(st.context.ip_address or "")
    except Exception:
        return ""


def sign_in(username: str, password: str) -> tuple[bool, str, float]:
    """Check a password sign-in; returns (ok, message key, minutes to wait when throttled).

    Failures count per user name and per client address, in the store (shared by replicas);
    after the policy's limit the next attempts are refused without checking the password.
    """
    db = get_store()
    if db is None:
        return False, "auth.store_down", 0.0
    name = (username or "").strip().lower()[:64]
    pol = store.policy.policy()
    keys = {f"user:{name}": pol.max_login_failures}
    if _client():
        keys[f"ip:{_client()}"] = pol.max_client_failures
    wait, attempt = db.begin_login(keys)  # counted before the check: parallel attempts cannot all pass
    if wait > 0:
        return False, "auth.throttled", math.ceil(wait / 60)
    with _checks():
        ok = accounts.verify(config.users_file(), name, password or "")
    db.finish_login(attempt, ok, f"user:{name}")
    if not ok:
        return False, "auth.failed", 0.0
    st.session_state[KEY_USER] = name
    return True, "auth.welcome", 0.0


def sign_out() -> None:
    """Forget everything of the sales session — identity, scenario (it may hold a price book),
    links, messages — but the language and currency; the URL drops the scenario too."""
    for key in [k for k in st.session_state if k not in _KEEP_ON_SIGN_OUT]:
        del st.session_state[key]
    for param in ("p", "s", "t"):
        if param in st.query_params:
            del st.query_params[param]
    if oidc_configured():
        try:
            if st.user.is_logged_in:
                st.logout()
        except Exception:
            log.exception("logout failed")


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
