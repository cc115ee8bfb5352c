"""HTTP routes beside the Streamlit app that set and clear the sales session cookie.

Streamlit talks over a websocket and cannot set a cookie, so a password sign-in leaves a one-time
hand-over value (:func:`store.sessions.begin`) that the page posts here; the response sets an
``HttpOnly``, ``SameSite=Strict`` cookie (``Secure`` over HTTPS, or always with
``FABRIC_TCO_SECURE_COOKIES=1``). Requests from another origin are refused. No Streamlit here:
these run on the server's event loop, the store calls in a worker thread.
"""

from __future__ import annotations

import functools
import logging
import os
import time

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

import store
from store import sessions
from webui.session import origin_guard

log = logging.getLogger(__name__)
MAX_BODY = 256  # bytes: a hand-over value is 43 characters
ENV_SECURE = "FABRIC_TCO_SECURE_COOKIES"


@functools.cache
def _store() -> store.Store:
    return store.open_store()


def _same_origin(request: Request) -> bool:
    """No Origin header (same-origin fetches may omit it on some browsers) or exactly an allowed
    origin (scheme, host and port: :func:`webui.session.origin_guard.allowed`, the websocket's check)."""
    return origin_guard.allowed(request.scope)


def _secure(request: Request) -> bool:
    return os.environ.get(ENV_SECURE, "") == "1" or request.url.scheme == "https"


async def open_session(request: Request) -> Response:
    """``POST /auth/session`` with the hand-over value as the body: 204 and the cookie, else 403."""
    if not _same_origin(request):
        return Response(status_code=403)
    body = (await request.body())[:MAX_BODY + 1]
    if len(body) > MAX_BODY:
        return Response(status_code=413)
    try:
        got = await run_in_threadpool(sessions.hand_over, _store(), body.decode("ascii", "replace").strip())
    except Exception:
        log.exception("session hand-over failed")
        return Response(status_code=503)
    if got is None:
        return Response(status_code=403)
    token, expires_at = got
    response = Response(status_code=204, headers={"Cache-Control": "no-store"})
    response.set_cookie(sessions.settings().cookie, token, max_age=max(0, int(expires_at - time.time())),
                        path="/", httponly=True, samesite="strict", secure=_secure(request))
    return response


async def close_session(request: Request) -> Response:
    """``POST /auth/sign-out``: revoke the cookie's session (if any) and delete the cookie."""
    if not _same_origin(request):
        return Response(status_code=403)
    name = sessions.settings().cookie
    token = request.cookies.get(name)
    if token:
        try:
            await run_in_threadpool(sessions.revoke, _store(), None, token)
        except Exception:
            log.exception("session revoke failed")
    response = Response(status_code=204, headers={"Cache-Control": "no-store"})
    response.delete_cookie(name, path="/", httponly=True, samesite="strict", secure=_secure(request))
    return response


def routes() -> list[Route]:
    return [Route("/auth/session", open_session, methods=["POST"]),
            Route("/auth/sign-out", close_session, methods=["POST"])]
