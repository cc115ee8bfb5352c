"""The exact-origin check against the real server (``scripts/serve.sh``, the image's start command).

Browsers send the sales cookie to every port and scheme of a host. A websocket handshake (and a
sign-in cookie POST) is accepted only from the server's own origin — scheme, host and port — or
the configured public origins; another port, another scheme, a localhost alias or a foreign host
is refused before Streamlit runs, so a page of another service on the same host never sees a
signed-in session. Needs Debian's Chromium for the browser part (fails under CI=true without it).
"""

from __future__ import annotations

import http.server
import os
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from browser_helpers import ROOT, AppServer, free_port, require_browser
from origin_probe import handshake, refused_origins, run
from websockets.exceptions import InvalidStatus

import store
from store import accounts, sessions
from webui.i18n import catalog

sys.path.append(str(ROOT / "bench"))
from st_client import Session

PASSWORD = "origin test password"
USER = "olga"


@pytest.fixture(scope="module")
def server():
    accounts.add_user(Path(os.environ["FABRIC_TCO_USERS"]), USER, PASSWORD, replace=True)
    app = AppServer("origin", production=True).wait_ready()
    yield app
    app.stop()


def signed_in_cookie() -> str:
    """A valid sales session cookie value for ``USER``, made as the sign-in makes it."""
    db = store.open_store()
    try:
        _sid, handoff = sessions.begin(db, USER)
        token, _expires = sessions.hand_over(db, handoff)
    finally:
        db.engine.dispose()
    return token


def test_own_origin_accepted_other_port_scheme_alias_and_host_refused(server):
    assert run(handshake(server.base, server.base)) == 101
    for what, origin in refused_origins(server.port).items():
        assert run(handshake(server.base, origin)) == 403, what
    log = server.log_path.read_text(encoding="utf-8")
    assert "refused websocket /_stcore/stream from origin 'http://localhost:9999'" in log


def test_the_cookie_routes_take_the_same_exact_check(server):
    import urllib.error
    import urllib.request

    def post(origin: str) -> int:
        req = urllib.request.Request(server.base + "/auth/sign-out", data=b"", method="POST",
                                     headers={"Origin": origin})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status
        except urllib.error.HTTPError as exc:
            return exc.code

    assert post(server.base) == 204
    for what, origin in refused_origins(server.port).items():
        assert post(origin) == 403, what


def _page_texts(run) -> str:
    return "\n".join(str(el) for _, el in run.elements)


async def _open_with_cookie(base: str, origin: str, token: str):
    s = Session(base, origin=origin)
    s.cookies[sessions.settings().cookie] = token
    try:
        return await s.open("scenarios", "lang=en")
    finally:
        await s.close()


def test_a_valid_sales_cookie_from_a_refused_origin_never_sees_a_signed_in_page(server):
    token = signed_in_cookie()
    signed_in = catalog("en")["app.signed_in"].format(user=USER)
    own = run(_open_with_cookie(server.base, server.base, token))  # control: the cookie is valid
    assert signed_in in _page_texts(own)
    for what, origin in refused_origins(server.port).items():
        with pytest.raises(InvalidStatus) as refused:
            run(_open_with_cookie(server.base, origin, token))
        assert refused.value.response.status_code == 403, what
    # the refused attempts resumed nothing and revoked nothing: the cookie still signs in from its origin
    assert signed_in in _page_texts(run(_open_with_cookie(server.base, server.base, token)))


ATTACK = """<!doctype html><title>another service</title><script>
window.result = new Promise(done => {
  const ws = new WebSocket("%s", ["streamlit", "PLACEHOLDER_AUTH_TOKEN"]);
  ws.binaryType = "arraybuffer";
  let frames = 0;
  ws.onopen = () => setTimeout(() => { done({opened: true, frames}); ws.close(); }, 1500);
  ws.onmessage = () => { frames += 1; };
  ws.onclose = () => done({opened: false, frames});
});
</script>"""


@pytest.fixture
def other_service(server):
    """Another web service on the same host name (a different port) that serves the attack page."""
    page = ATTACK % (server.base.replace("http", "ws", 1) + "/_stcore/stream")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = page.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_in_chromium_a_page_on_another_port_cannot_open_the_signed_in_websocket(server, browser, other_service):
    require_browser()
    token = signed_in_cookie()
    ctx = browser.new_context()
    ctx.add_cookies([{"name": sessions.settings().cookie, "value": token, "domain": "127.0.0.1", "path": "/",
                      "httpOnly": True, "sameSite": "Strict"}])
    try:
        attacker = ctx.new_page()
        attacker.goto(other_service + "/")
        got = attacker.evaluate("window.result")
        assert got == {"opened": False, "frames": 0}, got
        # control: the same script from the app's own origin opens the websocket with the same cookie
        own = ctx.new_page()
        own.goto(server.base + "/_stcore/health")
        script = ATTACK % (server.base.replace("http", "ws", 1) + "/_stcore/stream")
        body = script.split("<script>", 1)[1].rsplit("</script>", 1)[0]
        assert own.evaluate(f"() => {{ {body}; return window.result; }}")["opened"] is True
    finally:
        ctx.close()


@pytest.fixture(scope="module")
def public_server():
    """A replica behind a proxy whose public name is configured: only that origin is accepted."""
    app = AppServer("origin-list", env={"FABRIC_TCO_ORIGINS": "https://tco.example.com,http://127.0.0.1:8080"},
                    production=True).wait_ready()
    yield app
    app.stop()


def test_configured_public_origins_replace_the_own_origin(public_server):
    base = public_server.base
    public = "tco.example.com"  # the Host a proxy passes on
    assert run(handshake(base, "https://tco.example.com", host=public)) == 101
    assert run(handshake(base, "http://127.0.0.1:8080", host="127.0.0.1:8080")) == 101
    assert run(handshake(base, base)) == 403  # the replica's own address is not a public name
    for origin in ("http://tco.example.com", "https://tco.example.com:8443", "https://evil.example.com"):
        assert run(handshake(base, origin, host=public)) == 403, origin
        assert run(handshake(base, origin, host=urlsplit(origin).netloc)) == 403, origin


def test_a_bad_origin_list_stops_the_server_with_its_message():
    app = AppServer("origin-bad", env={"FABRIC_TCO_ORIGINS": "tco.example.com"}, production=True)
    try:
        app.proc.wait(timeout=60)
    except Exception:
        app.stop()
        raise
    app.stop()
    assert app.proc.returncode != 0
    assert "FABRIC_TCO_ORIGINS: 'tco.example.com' is not an origin" in app.log_path.read_text(encoding="utf-8")
