"""The exact-origin check (webui/session/origin_guard.py) on ASGI scopes: scheme, host and port must all
match; a configured list replaces the request's own origin; a refused request never reaches the app."""

from __future__ import annotations

import pytest
from origin_probe import run

from webui.session import origin_guard
from webui.session.origin_guard import OriginGuard, allowed, configured, normalise


def _scope(kind: str = "websocket", origin: str | None = "http://127.0.0.1:8651", host: str = "127.0.0.1:8651",
           scheme: str = "ws", method: str = "GET", path: str = "/_stcore/stream") -> dict:
    headers = [(b"host", host.encode())] + ([(b"origin", origin.encode())] if origin is not None else [])
    scope = {"type": kind, "scheme": scheme, "path": path, "headers": headers}
    if kind == "http":
        scope["method"] = method
    return scope


@pytest.mark.parametrize(("raw", "norm"), [
    ("http://127.0.0.1:8651", "http://127.0.0.1:8651"), ("HTTPS://Tco.Example.COM:443", "https://tco.example.com"),
    ("http://h:80/", "http://h"), ("http://[::1]:8651", "http://[::1]:8651"), ("null", None), ("file://x", None),
    ("http://u@h", None), ("http://h/path", None), ("http://h:99999", None), ("h:80", None)])
def test_normalise(raw, norm):
    assert normalise(raw) == norm


@pytest.mark.parametrize(("origin", "ok"), [
    ("http://127.0.0.1:8651", True), (None, True),
    ("http://127.0.0.1:8652", False),  # another port of the same host
    ("https://127.0.0.1:8651", False), ("https://127.0.0.1", False),  # another scheme
    ("http://localhost:8651", False), ("http://localhost:9999", False),  # an alias of the host
    ("http://evil.example", False), ("null", False), ("http://127.0.0.1:8651.evil.example", False)])
def test_own_origin_by_default(origin, ok):
    assert allowed(_scope(origin=origin), frozenset()) is ok


def test_the_scheme_the_browser_used_counts():
    assert allowed(_scope(origin="https://tco.example.com", host="tco.example.com", scheme="wss"), frozenset())
    assert not allowed(_scope(origin="http://tco.example.com", host="tco.example.com", scheme="wss"), frozenset())
    assert not allowed(_scope(origin="http://h", host=""), frozenset())


def test_a_configured_list_replaces_the_own_origin():
    origins = configured({origin_guard.ENV_ORIGINS: " https://tco.example.com , http://10.0.0.5:8080 "})
    assert origins == {"https://tco.example.com", "http://10.0.0.5:8080"}
    assert allowed(_scope(origin="https://tco.example.com:443"), origins)
    assert allowed(_scope(origin="http://10.0.0.5:8080"), origins)
    assert not allowed(_scope(), origins)  # the replica's own address is not a public origin
    assert not allowed(_scope(origin="https://tco.example.com:8443"), origins)


@pytest.mark.parametrize("bad", ["tco.example.com", "https://tco.example.com/app", "ftp://x", "*"])
def test_a_bad_list_names_the_variable_and_the_form(bad):
    with pytest.raises(ValueError, match=r"FABRIC_TCO_ORIGINS.*http\(s\)://host\[:port\]"):
        configured({origin_guard.ENV_ORIGINS: f"https://ok.example,{bad}"})


def _run(scope: dict) -> tuple[list[dict], bool]:
    sent, reached = [], []

    async def app(scope, receive, send):
        reached.append(scope)

    async def receive():
        return {"type": "websocket.connect"}

    async def send(message):
        sent.append(message)

    run(OriginGuard(app)(scope, receive, send))  # a thread of its own: a worker's browser holds this loop
    return sent, bool(reached)


def test_middleware_closes_a_foreign_handshake_before_the_app(monkeypatch):
    monkeypatch.delenv(origin_guard.ENV_ORIGINS, raising=False)
    sent, reached = _run(_scope(origin="http://127.0.0.1:8652"))
    assert not reached and sent == [{"type": "websocket.close", "code": 1008}]
    assert _run(_scope()) == ([], True)


def test_middleware_guards_state_changing_requests_only(monkeypatch):
    monkeypatch.delenv(origin_guard.ENV_ORIGINS, raising=False)
    sent, reached = _run(_scope("http", origin="http://localhost:8651", scheme="http", method="POST",
                                path="/auth/session"))
    assert not reached and sent[0]["status"] == 403
    for method in ("PUT", "DELETE", "PATCH"):
        assert not _run(_scope("http", origin="https://127.0.0.1:8651", scheme="http", method=method))[1]
    assert _run(_scope("http", origin="http://127.0.0.1:8651", scheme="http", method="POST"))[1]
    assert _run(_scope("http", origin="http://evil.example", scheme="http", method="GET", path="/"))[1]
    assert _run({"type": "lifespan"})[1]
