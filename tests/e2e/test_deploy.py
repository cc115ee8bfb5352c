"""The deployment without containers, on the very files the containers use: PostgreSQL, two app
replicas started by ``scripts/serve.sh`` (the image's CMD) and Debian's nginx on
``deploy/nginx.conf``. A real Chromium session uploads a scenario file through nginx and saves
it; a second session through nginx loads it with identical results. A negative control shows
why the proxy must be sticky: when the websocket and the HTTP requests of one browser reach
different replicas, the upload fails.
"""

from __future__ import annotations

import json
import re
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
from stack import NGINX, Nginx, Stack, require_nginx

import costmodel
from store import accounts

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
    s = Stack(pg_server.new_database(), users, replicas=2)
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
    assert stack.nginx.conf.read_bytes() == (Path(__file__).resolve().parents[2] / "deploy/nginx.conf").read_bytes()


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
        }}
        location / {{ proxy_pass http://127.0.0.1:{b.port}; }}
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
