"""Long share links reach the app, which says what is wrong with them in the page's language.

A browser sends URLs up to 2 MiB (Chromium's limit). Uvicorn's HTTP/1.1 parser (h11) refuses a
request whose head is longer than 16 KiB with a bare "400 Bad Request" and a reset connection —
the browser's "This page isn't working", before any page code runs. Allowing any head a browser can
send lets the page load; the link itself is then refused in the app with the link's size and limit
(:data:`webui.session.share.MAX_TOKEN_CHARS`).
"""

from __future__ import annotations

#: Longest request head accepted [bytes]: Chromium's 2 MiB URL limit plus room for the headers.
MAX_REQUEST_HEAD_BYTES = 2 * 1024 * 1024 + 64 * 1024


def accept_long_links() -> None:
    """Raise the HTTP/1.1 parser's limit on a request head to :data:`MAX_REQUEST_HEAD_BYTES`
    (read by uvicorn for every new connection; the server imports the app before accepting any)."""
    from uvicorn.protocols.http import h11_impl

    h11_impl.DEFAULT_MAX_INCOMPLETE_EVENT_SIZE = max(h11_impl.DEFAULT_MAX_INCOMPLETE_EVENT_SIZE,
                                                     MAX_REQUEST_HEAD_BYTES)
