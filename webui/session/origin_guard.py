"""Exact-origin check for the sales session, as ASGI middleware in front of Streamlit.

Browsers send the session cookie to every port and scheme of a host, so a page served by another
service on the same host name could open the app's websocket (``/_stcore/stream``) with the sales
engineer's cookie. This middleware refuses, before Streamlit sees it, every websocket handshake and
every state-changing HTTP request (POST, PUT, PATCH, DELETE: the sign-in cookie routes, uploads)
whose ``Origin`` is not exactly (scheme, host, port) an allowed origin:

* ``FABRIC_TCO_ORIGINS`` (comma-separated, e.g. ``https://tco.example.com``): the proxy's public
  name(s); only these are allowed;
* otherwise the server's own origin as the browser sees it: the request's ``Host`` header and
  scheme (behind a trusted proxy, uvicorn takes the scheme from ``X-Forwarded-Proto``).

A request without an ``Origin`` header passes: browsers always send one on a websocket handshake
and on a cross-origin POST, so only non-browser clients omit it, and they hold no victim's cookie.
A refused handshake is closed before the app runs (the client sees HTTP 403), so no sign-in is ever
resumed from its cookie.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger(__name__)
ENV_ORIGINS = "FABRIC_TCO_ORIGINS"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_DEFAULT_PORT = {"http": 80, "https": 443}
_HTTP_SCHEME = {"ws": "http", "wss": "https", "http": "http", "https": "https"}

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def normalise(origin: str) -> str | None:
    """``scheme://host[:port]`` in lower case with the scheme's default port dropped, or None when
    ``origin`` is not an http(s) origin (a path, query, user or ``null`` make it invalid)."""
    try:
        parts = urlsplit(origin.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORT or not parts.hostname or parts.username is not None \
            or parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    host = parts.hostname.lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    return f"{scheme}://{host}" if port in (None, _DEFAULT_PORT[scheme]) else f"{scheme}://{host}:{port}"


def configured(env: MutableMapping[str, str] | None = None) -> frozenset[str]:
    """The origins listed in ``FABRIC_TCO_ORIGINS`` (empty: none configured).

    Raises ValueError naming the variable when an entry is not an http(s) origin.
    """
    raw = (os.environ if env is None else env).get(ENV_ORIGINS, "")
    found = set()
    for entry in filter(None, (e.strip() for e in raw.split(","))):
        norm = normalise(entry)
        if norm is None:
            raise ValueError(f"{ENV_ORIGINS}: {entry!r} is not an origin; allowed: comma-separated "
                             "http(s)://host[:port] without a path")
        found.add(norm)
    return frozenset(found)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def own_origin(scope: Scope) -> str | None:
    """The origin the browser sees for this request: its scheme and ``Host`` header."""
    host = _header(scope, b"host")
    scheme = _HTTP_SCHEME.get(str(scope.get("scheme", "http")).lower())
    if not host or scheme is None:
        return None
    return normalise(f"{scheme}://{host}")


def allowed(scope: Scope, origins: frozenset[str] | None = None) -> bool:
    """True when the request has no Origin header or its Origin is exactly an allowed origin
    (``origins``, default :func:`configured`; when none is configured, the request's own origin)."""
    origin = _header(scope, b"origin")
    if origin is None:
        return True
    origins = configured() if origins is None else origins
    got = normalise(origin)
    if got is None:
        return False
    return got in origins if origins else got == own_origin(scope)


def guarded(scope: Scope) -> bool:
    """Whether the request is one the check applies to: a websocket or a state-changing HTTP request."""
    return scope["type"] == "websocket" or (scope["type"] == "http" and scope.get("method") in UNSAFE_METHODS)


class OriginGuard:
    """ASGI middleware: refuse a guarded request from a foreign origin (websocket: close before accept,
    which the server answers with HTTP 403; HTTP: 403) without calling the app."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], origins: frozenset[str] | None = None):
        self.app = app
        self.origins = configured() if origins is None else origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and guarded(scope) and not allowed(scope, self.origins):
            log.warning("refused %s %s from origin %r", scope["type"], scope.get("path"),
                        _header(scope, b"origin"))
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            await send({"type": "http.response.start", "status": 403,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"cache-control", b"no-store")]})
            await send({"type": "http.response.body", "body": b"origin not allowed"})
            return
        await self.app(scope, receive, send)
