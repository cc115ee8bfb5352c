"""The container image, built from the Dockerfile and run for real (Debian's podman, no registry).

Built once per run (``scripts/image/build.sh``: ~4 min cold on 2 cores, seconds with the layer
cache), then run as deploy/docker-compose.yml runs it (read-only root, tmpfs, cap-drop ALL,
no-new-privileges): healthy, uid 10001, a read-only root, the SQLite fallback and the users file in
the tmpfs ``/app/var``, sign-in and a saved scenario in a real browser, the Chinese PDF report made
inside the container with its own Chromium. Then two replicas behind deploy/nginx.conf on the
host's PostgreSQL: a scenario saved through one replica loads through the other.

Without podman, runc or mmdebstrap these tests skip, and FAIL under CI=true.
``FABRIC_TCO_TEST_IMAGE=<tag>`` runs them against an image built elsewhere (no build).
"""

from __future__ import annotations

import io
import json
import os
import re
import secrets
import tempfile
from pathlib import Path

import pytest
from browser_helpers import (
    ROOT,
    expected_tco,
    free_port,
    open_compare,
    open_page,
    require_browser,
    settle,
    sign_in,
    wait_for,
)
from containers import Container, build_image, compose_run_args, podman, require_podman
from origin_probe import handshake, refused_origins, run
from stack import Nginx, require_nginx

import costmodel
from store import accounts

PASSWORD = "image test password"
APP_UID = 10001
PRESET = "seed-case2-24xA100"


@pytest.fixture(scope="module")
def image() -> str:
    require_podman()
    tag, seconds = build_image()
    print(f"\nimage {tag} built in {seconds:.0f} s")
    return tag


@pytest.fixture(scope="module")
def app(image):
    """One container as compose runs it, without DATABASE_URL: the SQLite fallback in /app/var."""
    port = free_port()
    c = Container(image, f"fabric-tco-test-{port}",
                  [*compose_run_args(with_volumes=False), "-p", f"127.0.0.1:{port}:8501"])
    try:
        seconds = c.wait_healthy()
        print(f"\nhealthy {seconds:.1f} s after start")
        c.base = f"http://127.0.0.1:{port}"
        yield c
    finally:
        c.stop()


def _scenario_file(tmp_path: Path, name: str) -> tuple[costmodel.Scenario, Path]:
    scen = costmodel.Scenario(name=name, cluster={"nodes": 64}, fabrics=["tcp-400", "roce-400", "ib-ndr-400"],
                              baseline="tcp-400")
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scen.model_dump(mode="json")), encoding="utf-8")
    return scen, path


def _locked_pins() -> dict[str, str]:
    pins = re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", (ROOT / "requirements.lock").read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[-_.]+", "-", name).lower(): version for name, version in pins}


def test_image_keeps_its_healthcheck_user_and_exactly_the_locked_packages(image):
    [info] = json.loads(podman("image", "inspect", image).stdout)
    assert (info.get("Healthcheck") or {}).get("Test", [])[:2] == ["CMD", "python"], \
        "built with --format docker (the OCI format drops HEALTHCHECK)"
    assert info["Config"]["User"] == f"{APP_UID}:{APP_UID}"
    script = ("import importlib.metadata as m, json; "
              "print(json.dumps({d.metadata['Name']: d.version for d in m.distributions()}))")
    out = podman("run", "--rm", "--entrypoint", "python", image, "-c", script).stdout
    installed = {re.sub(r"[-_.]+", "-", k).lower(): v for k, v in json.loads(out).items()}
    assert installed == _locked_pins(), "the image holds requirements.lock, no more, no less (no pip either)"
    # the PDF needs only Debian's Chromium (driven over its pipe) and chrt: no Node, no Playwright
    tools = podman("run", "--rm", "--entrypoint", "sh", image, "-c",
                   "command -v chrt; command -v node || echo no-node; "
                   "find /opt/venv -name 'node' -type f | head -1", check=False)
    assert tools.stdout.decode().split() == ["/usr/bin/chrt", "no-node"], tools.stdout.decode()


def test_runs_healthy_as_uid_10001_on_a_read_only_root(app):
    assert app.inspect("{{.State.Health.Status}}") == "healthy"
    assert app.inspect("{{.HostConfig.ReadonlyRootfs}}") == "true"
    assert app.exec("id", "-u").stdout.decode().strip() == str(APP_UID)
    for path in ("/app/app.py.new", "/opt/venv/x", "/etc/x"):
        proc = app.exec("touch", path)
        assert proc.returncode != 0 and b"Read-only file system" in proc.stderr, path
    caps = app.exec("sh", "-c", "grep CapEff /proc/self/status").stdout.decode()
    assert caps.split()[-1] == "0000000000000000", caps  # cap_drop: ALL
    assert app.exec("sh", "-c", "grep NoNewPrivs /proc/self/status").stdout.decode().split()[-1] == "1"


def test_users_file_and_sqlite_fallback_live_in_the_tmpfs_app_var(app):
    mounts = app.exec("sh", "-c", "grep ' /app/var ' /proc/mounts").stdout.decode()
    assert mounts.split()[2] == "tmpfs", mounts
    add = app.exec("python", "-m", "store", "add-user", "alice", "--password-stdin", input=PASSWORD.encode() + b"\n")
    assert add.returncode == 0, add.stderr.decode()
    assert b"/app/var/users.json" in add.stdout
    assert app.exec("python", "-m", "store", "list-users").stdout.decode().split() == ["alice"]
    assert app.exec("stat", "-c", "%a %u", "/app/var/users.json").stdout.decode().split() == ["600", str(APP_UID)]
    migrate = app.exec("python", "-m", "store", "migrate")
    assert migrate.returncode == 0, migrate.stderr.decode()
    assert "sqlite" in migrate.stdout.decode() and "/app/var/fabric-tco.db" in migrate.stdout.decode()
    assert app.exec("test", "-s", "/app/var/fabric-tco.db").returncode == 0


def test_sign_in_save_and_compare_in_a_browser(app, browser, tmp_path):
    if app.exec("test", "-s", "/app/var/users.json").returncode != 0:
        add = app.exec("python", "-m", "store", "add-user", "alice", "--password-stdin",
                       input=PASSWORD.encode() + b"\n")
        assert add.returncode == 0, add.stderr.decode()
    scen, upload = _scenario_file(tmp_path, "In the image <b>SQLite</b>")
    expected = expected_tco(scen)
    ctx, page = open_page(browser, f"{app.base}/scenarios?lang=en&cur=USD")
    sign_in(page, "alice", PASSWORD)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(upload))
    page.get_by_text("Imported “").wait_for()
    settle(page)
    page.get_by_role("button", name="Save as new scenario").click()
    page.get_by_text("as version 1.").wait_for()
    assert wait_for(page, lambda: open_compare(page), expected) == expected
    page.locator(".js-plotly-plot").first.wait_for()
    assert page.locator('[data-testid="stException"]').count() == 0
    (ROOT / "out").mkdir(exist_ok=True)
    page.screenshot(path=str(ROOT / "out" / "image-compare.png"))
    ctx.close()
    # a new session reads it back from the SQLite file in /app/var
    ctx, page = open_page(browser, f"{app.base}/scenarios?lang=en&cur=USD")
    sign_in(page, "alice", PASSWORD)
    page.get_by_role("button", name="Load latest").click()
    page.get_by_text("Loaded “").wait_for()
    settle(page)
    assert wait_for(page, lambda: open_compare(page), expected) == expected
    ctx.close()


def test_the_image_accepts_websockets_from_its_own_origin_only(app):
    """The exact-origin check in the image as run: the published port is the browser's origin."""
    assert run(handshake(app.base, app.base)) == 101
    port = int(app.base.rsplit(":", 1)[1])
    for what, origin in refused_origins(port).items():
        assert run(handshake(app.base, origin)) == 403, what
    assert "refused websocket /_stcore/stream from origin 'http://evil.example'" in app.logs()


def test_chinese_pdf_report_is_made_inside_the_container(app):
    from pypdf import PdfReader

    made = app.exec("python", "-m", "webui.cli", "report", "--preset", PRESET, "--lang", "zh", "--pdf", "/tmp/r.pdf")
    assert made.returncode == 0, (made.stdout + made.stderr).decode(errors="replace")[-3000:]
    data = app.exec("cat", "/tmp/r.pdf").stdout
    assert data.startswith(b"%PDF-")
    reader = PdfReader(io.BytesIO(data))
    assert len(reader.pages) >= 2
    text = "".join(page.extract_text() or "" for page in reader.pages)
    assert len(re.findall(r"[\u4e00-\u9fff]", text)) > 50, text[:500]  # Chinese text, not tofu boxes
    fonts = set()  # Chromium embeds the CFF-based Noto CJK as Type3: its name is in the descriptor
    for pdf_page in reader.pages:
        for font in (pdf_page.get("/Resources", {}).get("/Font", {}) or {}).values():
            font = font.get_object()
            descriptor = font.get("/FontDescriptor")
            fonts.add(str(descriptor.get_object().get("/FontName") if descriptor else font.get("/BaseFont")))
    assert any("NotoSansCJK" in f for f in fonts), fonts  # the image's fonts-noto-cjk


@pytest.fixture
def users_file() -> Path:
    """An accounts file mounted read-only at /app/var/users.json, as compose mounts it (0600, uid 10001)."""
    path = Path(tempfile.mkdtemp(prefix="fabric-tco-image-users-")) / "users.json"
    accounts.add_user(path, "alice", PASSWORD)
    if os.geteuid() == 0:
        os.chown(path, APP_UID, APP_UID)  # docs/deploy.md: `sudo chown 10001:10001 secrets/users.json`
    else:
        path.chmod(0o644)
    return path


def test_two_replicas_behind_nginx_share_postgresql(image, pg_server, browser, users_file, tmp_path):
    """A scenario saved through nginx loads through each replica directly (so through the other one too)."""
    require_browser()
    require_nginx()
    database_url = pg_server.new_database()
    cookie_secret = secrets.token_hex(32)
    ports = [free_port(), free_port()]
    replicas: list[Container] = []
    nginx = None
    try:
        for i, port in enumerate(ports):
            # the host's network: the replicas reach the loopback PostgreSQL and nginx reaches them
            args = [*compose_run_args(with_volumes=False), "--network", "host",
                    "-v", f"{users_file}:/app/var/users.json:ro",
                    "-e", f"PORT={port}", "-e", "ADDRESS=127.0.0.1", "-e", f"DATABASE_URL={database_url}",
                    "-e", f"STREAMLIT_SERVER_COOKIE_SECRET={cookie_secret}"]
            replicas.append(Container(image, f"fabric-tco-replica{i}-{port}", args))
        for r in replicas:
            r.wait_healthy()
        nginx = Nginx(ports).start()
        scen, upload = _scenario_file(tmp_path, "Through nginx, two images")
        expected = expected_tco(scen)
        ctx, page = open_page(browser, f"{nginx.base}/scenarios?lang=en&cur=USD")
        sign_in(page, "alice", PASSWORD)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(upload))
        page.get_by_text("Imported “").wait_for()
        settle(page)
        page.get_by_role("button", name="Save as new scenario").click()
        page.get_by_text("as version 1.").wait_for()
        ctx.close()
        for port in ports:
            ctx, page = open_page(browser, f"http://127.0.0.1:{port}/scenarios?lang=en&cur=USD")
            sign_in(page, "alice", PASSWORD)
            page.get_by_role("button", name="Load latest").click()
            page.get_by_text("Loaded “").wait_for()
            settle(page)
            assert wait_for(page, lambda p=page: open_compare(p), expected) == expected, port
            ctx.close()
        for r in replicas:  # nothing fell back to SQLite in /app/var
            assert r.exec("test", "-e", "/app/var/fabric-tco.db").returncode != 0
    finally:
        if nginx is not None:
            nginx.stop()
        for r in replicas:
            r.stop()
