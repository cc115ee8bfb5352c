"""The production topology on loopback, without containers: PostgreSQL, N app replicas and
Debian's nginx running the very ``deploy/nginx.conf`` that docker compose mounts.

Used by ``tests/e2e/test_deploy.py`` and ``bench/load_bench.py``. nginx needs the Debian
package ``nginx`` (``.ci/run`` installs it); without it the tests skip, and fail under CI=true.
Tests run on several pytest-xdist workers at once, so each nginx listens on a port of its worker's
(``ports.free_port``) and keeps its pid file in its own directory: the copy of the config differs
from the deployed file in those two lines only (``deployed_conf``), which test_deploy checks.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from browser_helpers import ROOT, AppServer, stop_process
from need import missing
from ports import free_port

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
NGINX_PORT = 8080  # deploy/nginx.conf listens here
LISTEN = f"listen {NGINX_PORT};"  # the two directives a test copy changes
PID = "pid /tmp/nginx-fabric-tco.pid;"


def deployed_conf(conf: bytes, listen: int, pid: Path) -> bytes:
    """``conf`` (deploy/nginx.conf's bytes) listening on ``listen`` with its pid file at ``pid``."""
    text = conf.decode("utf-8")
    if text.count(LISTEN) != 1 or text.count(PID) != 1:
        raise AssertionError(f"the nginx config no longer has exactly one {LISTEN!r} and one {PID!r}")
    return text.replace(LISTEN, f"listen {listen};").replace(PID, f"pid {pid};").encode("utf-8")


def require_nginx() -> None:
    """Skip (fail under CI=true) when nginx is not installed."""
    if not os.path.exists(NGINX):
        missing("the deployment tests need nginx (Debian package nginx)")


class Nginx:
    """nginx on a copy of a config file plus an upstreams.conf listing loopback replicas.

    ``listen``: the port ``conf`` listens on; for the deployed config (the default) a port of this
    worker's unless given, written into the copy with its pid file (``deployed_conf``)."""

    def __init__(self, ports: list[int], conf: Path = NGINX_CONF, upstreams: str | None = None,
                 listen: int | None = None):
        require_nginx()
        self.dir = Path(tempfile.mkdtemp(prefix="fabric-tco-nginx-"))
        self.conf = self.dir / "nginx.conf"
        if conf == NGINX_CONF:  # the deployed file but for its listen port and pid file
            listen = listen or free_port()
            self.conf.write_bytes(deployed_conf(conf.read_bytes(), listen, self.dir / "nginx.pid"))
        elif listen is None:
            raise ValueError("a config other than deploy/nginx.conf needs the port it listens on")
        else:
            self.conf.write_bytes(conf.read_bytes())
        servers = "".join(f"    server 127.0.0.1:{p} max_fails=3 fail_timeout=10s;\n" for p in ports)
        default = f"upstream fabric_app {{\n    hash $fabric_route consistent;\n{servers}    keepalive 32;\n}}\n"
        (self.dir / "upstreams.conf").write_text(upstreams or default)
        self.port = listen  # the port the config listens on
        self.base = f"http://127.0.0.1:{listen}"
        self.log = open(self.dir / "nginx.log", "w")
        self.proc = None

    def start(self) -> Nginx:
        if not port_free(self.port):
            pytest.fail(f"port {self.port} (the nginx config's listen port) is in use")
        self.proc = subprocess.Popen([NGINX, "-p", str(self.dir), "-c", str(self.conf), "-g", "daemon off;"],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(self.base + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.2)
            if self.proc.poll() is not None:
                break
        self.stop()
        pytest.fail(f"nginx did not start: {(self.dir / 'nginx.log').read_text()[-2000:]}")

    def stop(self) -> None:
        stop_process(self.proc)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def port_free(port: int) -> bool:
    """True when nothing listens on ``port`` of loopback."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class Stack:
    """PostgreSQL database URL + ``replicas`` app servers + nginx in front."""

    def __init__(self, database_url: str, users_file: Path, replicas: int = 2, nginx_upstreams: str | None = None,
                 listen: int | None = None):
        env = {"DATABASE_URL": database_url, "FABRIC_TCO_USERS": str(users_file)}
        self.apps = [AppServer(f"replica{i}", env, port=free_port(), production=True) for i in range(replicas)]
        self.nginx = Nginx([a.port for a in self.apps], upstreams=nginx_upstreams, listen=listen)
        try:
            for app in self.apps:
                app.wait_ready()
            self.nginx.start()
        except BaseException:  # pytest.fail is a BaseException: never leave replicas behind
            self.stop()
            raise
        self.base = self.nginx.base

    def stop(self) -> None:
        self.nginx.stop()
        for app in self.apps:
            app.stop()
