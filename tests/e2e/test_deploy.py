"""The deployment without containers, on the very files the containers use: PostgreSQL, two app
replicas started by ``scripts/serve.sh`` (the image's CMD) and Debian's nginx on
``deploy/nginx.conf``. A real Chromium session uploads a scenario file through nginx and saves
it; a second session through nginx loads it with identical results. A negative control shows
why the proxy must be sticky: when the websocket and the HTTP requests of one browser reach
different replicas, the upload fails. A client cannot choose the address the sign-in throttle
counts (a forged ``X-Forwarded-For``), and Streamlit's internal endpoints are closed.
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest
from browser_helpers import (
    AppServer,
    expected_tco,
    free_port,
    open_compare,
    open_page,
    require_browser,
    settle,
    sign_in,
    wait_for,
)
from origin_probe import handshake, refused_origins, run
from stack import LISTEN, NGINX, PID, Nginx, Stack, require_nginx

import costmodel
import store
from store import accounts
from store.tables import login_failures

PASSWORD = "deploy test password"
SECURITY_HEADERS = ("content-security-policy", "x-content-type-options", "x-frame-options", "referrer-policy",
                    "permissions-policy", "strict-transport-security")


@pytest.fixture(scope="module")
def users() -> Path:
    path = Path(tempfile.mkdtemp(prefix="fabric-tco-users-")) / "users.json"
    accounts.add_user(path, "alice", PASSWORD)
    return path


@pytest.fixture(scope="module")
def stack(pg_server, users):
    require_browser()
    require_nginx()
    url = pg_server.new_database()
    with pytest.MonkeyPatch.context() as mp:
        # as deployed: the replicas trust X-Forwarded-For from the proxy's address only (here loopback)
        mp.setenv("FORWARDED_ALLOW_IPS", "127.0.0.1")
        s = Stack(url, users, replicas=2)
    s.database_url = url
    yield s
    s.stop()


def _sign_in(page) -> None:
    sign_in(page, "alice", PASSWORD)


def _scenario_file(tmp_path: Path, name: str) -> tuple[costmodel.Scenario, Path]:
    scen = costmodel.Scenario(name=name, cluster={"nodes": 96}, fabrics=["tcp-400", "roce-400", "ib-ndr-400"],
                              baseline="tcp-400")
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scen.model_dump(mode="json")), encoding="utf-8")
    return scen, path


def test_nginx_config_is_valid_as_deployed(stack):
    out = subprocess.run([NGINX, "-t", "-p", str(stack.nginx.dir), "-c", str(stack.nginx.conf)],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    # the deployed file, line for line, but for this worker's listen port and the pid file's place
    deployed = (Path(__file__).resolve().parents[2] / "deploy/nginx.conf").read_text(encoding="utf-8").splitlines()
    running = stack.nginx.conf.read_text(encoding="utf-8").splitlines()
    assert len(running) == len(deployed)
    changed = {(a.strip(), b.strip()) for a, b in zip(deployed, running, strict=True) if a != b}
    assert changed == {(LISTEN, f"listen {stack.nginx.port};"), (PID, f"pid {stack.nginx.dir / 'nginx.pid'};")}, changed


def test_upload_through_nginx_then_a_second_session_loads_identical_results(stack, browser, tmp_path):
    scen, upload = _scenario_file(tmp_path, "Through nginx <b>sticky</b>")
    ctx, page = open_page(browser, f"{stack.base}/scenarios?lang=en&cur=USD")
    response = page.request.get(f"{stack.base}/scenarios")
    for header in SECURITY_HEADERS:
        assert header in response.headers, header
    cookies = {c["name"]: c["value"] for c in ctx.cookies()}
    assert re.fullmatch(r"[0-9a-f]{32}", cookies["fabric_route"])
    blocked = []  # what the Content-Security-Policy refuses would show in the console
    page.on("console", lambda msg: blocked.append(msg.text) if "Content Security Policy" in msg.text else None)
    refused = []  # a Streamlit endpoint the page needs but nginx closes would answer 404 here
    page.on("response", lambda r: refused.append(r.url) if "/_stcore/" in r.url and r.status >= 400 else None)
    _sign_in(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(upload))
    page.get_by_text("Imported “").wait_for()
    settle(page)
    page.get_by_role("button", name="Save as new scenario").click()
    page.get_by_text("as version 1.").wait_for()
    expected = expected_tco(scen)
    assert wait_for(page, lambda: open_compare(page), expected) == expected
    page.locator(".js-plotly-plot").first.wait_for()  # charts draw under the policy
    assert blocked == []
    assert refused == []
    ctx.close()

    for _ in range(2):  # new sessions land on either replica; each lists and loads the same scenario
        ctx, page = open_page(browser, f"{stack.base}/scenarios?lang=en&cur=USD")
        _sign_in(page)
        page.get_by_role("button", name="Load latest").click()
        page.get_by_text("Loaded “").wait_for()
        settle(page)
        assert wait_for(page, lambda p=page: open_compare(p), expected) == expected
        ctx.close()


def test_without_stickiness_the_upload_fails(users, pg_server, browser, tmp_path):
    """Negative control: websocket to replica A, every other request to replica B."""
    require_nginx()
    env = {"DATABASE_URL": pg_server.new_database(), "FABRIC_TCO_USERS": str(users)}
    a, b = (AppServer("split-a", env, production=True), AppServer("split-b", env, production=True))
    split = Path(tempfile.mkdtemp(prefix="fabric-tco-split-")) / "split.conf"
    port = free_port()
    split.write_text(f"""pid /tmp/nginx-fabric-tco-split.pid;
error_log stderr warn;
events {{ worker_connections 256; }}
http {{
    client_body_temp_path /tmp/nginx-client-body; proxy_temp_path /tmp/nginx-proxy;
    fastcgi_temp_path /tmp/nginx-fastcgi; uwsgi_temp_path /tmp/nginx-uwsgi; scgi_temp_path /tmp/nginx-scgi;
    server {{
        listen 127.0.0.1:{port};
        location /_stcore/stream {{
            proxy_pass http://127.0.0.1:{a.port}; proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection "upgrade";
            proxy_set_header Host $http_host;  # the browser's origin: the replicas accept no other
        }}
        location / {{ proxy_pass http://127.0.0.1:{b.port}; proxy_set_header Host $http_host; }}
    }}
}}
""")
    proxy = Nginx([], conf=split, upstreams="# unused\n", listen=port)
    try:
        a.wait_ready()
        b.wait_ready()
        proxy.start()
        _, upload = _scenario_file(tmp_path, "split")
        ctx, page = open_page(browser, f"{proxy.base}/scenarios?lang=en")
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(upload))
        page.wait_for_timeout(5000)
        settle(page)
        assert page.get_by_text("Imported “").count() == 0
        shown = page.inner_text('[data-testid="stFileUploader"]')
        (Path(__file__).resolve().parents[2] / "out").mkdir(exist_ok=True)
        page.screenshot(path=str(Path(__file__).resolve().parents[2] / "out" / "upload-without-stickiness.png"))
        # replica B never saw this session: it refuses the upload (HTTP 400), the app never gets the file
        assert page.locator('[data-testid="stFileChipIconError"]').count() == 1
        assert "status code 400" in shown, shown
        ctx.close()
    finally:
        proxy.stop()
        a.stop()
        b.stop()


# ------------------------------------------------------------------------- the client's address

FORGED = "203.0.113.66"  # TEST-NET-3: an address the client claims in X-Forwarded-For


def _lan_address() -> str | None:
    """A non-loopback IPv4 address of this machine (nginx listens on all of them), or None."""
    try:
        out = subprocess.run(["ip", "-4", "-o", "addr", "show", "scope", "global"], capture_output=True,
                             text=True, timeout=10).stdout
    except OSError:
        out = ""
    found = re.findall(r"\binet (\d+\.\d+\.\d+\.\d+)/", out)
    if not found:
        try:
            found = [a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
        except OSError:
            found = []
    return next((a for a in found if not a.startswith("127.")), None)


def _failed_sign_in(browser, url: str, user: str) -> None:
    """One wrong password on the Scenarios page, from a browser that sends a forged X-Forwarded-For
    with every request (the page, its websocket and uploads)."""
    ctx = browser.new_context(viewport={"width": 1500, "height": 1400}, locale="en-US",
                              extra_http_headers={"X-Forwarded-For": FORGED})
    page = ctx.new_page()
    page.set_default_timeout(60_000)
    page.goto(url)
    page.wait_for_selector("h1")
    settle(page)
    page.get_by_label("User name").fill(user)
    page.get_by_label("Password", exact=True).fill("not the password")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_text("User name or password is wrong.").wait_for()
    ctx.close()


def _counted_keys(stack) -> set[str]:
    db = store.open_store(stack.database_url, migrate_schema=False)
    try:
        with db.engine.connect() as conn:
            return set(conn.execute(login_failures.select().with_only_columns(login_failures.c.username)).scalars())
    finally:
        db.engine.dispose()


def test_a_forged_forwarded_address_is_replaced_by_the_real_one(stack, browser):
    """The sign-in throttle counts per client address: through nginx, the address the app records
    is the one nginx saw, never the one the client wrote into X-Forwarded-For."""
    _failed_sign_in(browser, f"{stack.base}/scenarios?lang=en", "probe-loopback")
    keys = _counted_keys(stack)
    assert "user:probe-loopback" in keys  # the attempt was counted ...
    assert f"ip:{FORGED}" not in keys, keys  # ... but not against the forged address
    # (Streamlit reports loopback as no address, so the loopback attempt has no per-address row)
    lan = _lan_address()
    if lan is None:  # a machine with loopback only: the check above is all there is
        return
    _failed_sign_in(browser, f"http://{lan}:{stack.nginx.port}/scenarios?lang=en", "probe-lan")
    keys = _counted_keys(stack)
    assert "user:probe-lan" in keys
    assert f"ip:{lan}" in keys, keys  # counted against the address nginx saw
    assert f"ip:{FORGED}" not in keys, keys


# ------------------------------------------------------------------- Streamlit's internal endpoints

CLOSED = ("/_stcore/metrics", "//_stcore/metrics", "/_stcore/%6detrics", "/_stcore/upload_file/..%2Fmetrics",
          "/_stcore/health/../metrics", "/_stcore/agent/openapi.json", "/_stcore/agent/mcp",
          "/_stcore/agent/interact", "/_stcore/script-health-check")


def _status(port: int, path: str) -> int:
    """The status of a GET of ``path`` sent byte for byte (no client-side normalisation)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path)
        return conn.getresponse().status
    finally:
        conn.close()


def test_internal_endpoints_are_closed_at_nginx_and_the_ones_the_page_needs_open(stack):
    replica = stack.apps[0].port
    assert _status(replica, "/_stcore/metrics") == 200  # the app serves them: nginx must close them
    assert _status(replica, "/_stcore/agent/openapi.json") != 404
    for path in CLOSED:
        assert _status(stack.nginx.port, path) == 404, path
    for path in ("/_stcore/health", "/_stcore/host-config"):
        assert _status(stack.nginx.port, path) == 200, path


def test_a_share_link_of_the_largest_allowed_size_passes_nginx(stack):
    """A share link may carry webui.session.share.MAX_TOKEN_CHARS characters of scenario: nginx's default 8 KiB
    request-line buffer would answer 414 before the app could open it."""
    from webui.session.share import MAX_TOKEN_CHARS

    path = "/?p=seed-intro-32xA100&lang=zh&cur=CNY&fx=7.1&s=" + "A" * MAX_TOKEN_CHARS
    assert _status(stack.nginx.port, path) == 200


def test_a_sign_in_survives_a_reload_through_nginx(stack, browser):
    """The page posts a hand-over to /auth/session, which refuses another origin: nginx must pass the
    Host the browser sent (with its port), or every sign-in cookie is refused behind the proxy."""
    from store import sessions

    ctx, page = open_page(browser, f"{stack.base}/scenarios?lang=en")
    statuses = []
    page.on("response", lambda r: statuses.append(r.status) if r.url.endswith("/auth/session") else None)
    _sign_in(page)
    name = sessions.settings().cookie
    assert wait_for(page, lambda: any(c["name"] == name for c in ctx.cookies()), True, timeout_s=20), statuses
    page.reload()
    page.wait_for_selector("h1")
    settle(page)
    page.get_by_role("button", name="Sign out").wait_for()
    assert page.get_by_role("button", name="Sign in").count() == 0
    ctx.close()


def test_websockets_through_nginx_accept_only_the_public_origin(stack):
    """nginx passes the browser's Host (with its port) and scheme on: the replicas accept a handshake
    from the proxy's public origin only — not from a replica's own port, another port or scheme, a
    localhost alias or another host — and the scheme a TLS terminator in front reports counts."""
    base = stack.base  # http://127.0.0.1:<this worker's nginx port>
    assert run(handshake(base, base)) == 101
    replica = f"http://127.0.0.1:{stack.apps[0].port}"
    assert run(handshake(base, replica)) == 403
    for what, origin in refused_origins(stack.nginx.port).items():
        assert run(handshake(base, origin)) == 403, what
    behind_tls = {"X-Forwarded-Proto": "https"}  # TLS ends in front of nginx, which speaks HTTP
    assert run(handshake(base, f"https://127.0.0.1:{stack.nginx.port}", headers=behind_tls)) == 101
    assert run(handshake(base, base, headers=behind_tls)) == 403
