"""The production topology on loopback, without containers: PostgreSQL, N app replicas and
Debian's nginx running the very ``deploy/nginx.conf`` that docker compose mounts.

Used by ``tests/e2e/test_deploy.py`` and ``bench/load_bench.py``. nginx needs the Debian
package ``nginx`` (``.ci/run`` installs it); without it the tests skip, and fail under CI=true.
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
from browser_helpers import ROOT, AppServer, free_port, stop_process
from need import missing

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
NGINX_CONF = ROOT / "deploy" / "nginx.conf"
NGINX_PORT = 8080  # deploy/nginx.conf listens here


def require_nginx() -> None:
    """Skip (fail under CI=true) when nginx is not installed."""
    if not os.path.exists(NGINX):
        missing("the deployment tests need nginx (Debian package nginx)")


class Nginx:
    """nginx on a copy of a config file plus an upstreams.conf listing loopback replicas."""

    def __init__(self, ports: list[int], conf: Path = NGINX_CONF, upstreams: str | None = None,
                 listen: int = NGINX_PORT):
        require_nginx()
        self.dir = Path(tempfile.mkdtemp(prefix="fabric-tco-nginx-"))
        self.conf = self.dir / "nginx.conf"
        self.conf.write_bytes(conf.read_bytes())  # byte for byte the deployed file
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

    def __init__(self, database_url: str, users_file: Path, replicas: int = 2, nginx_upstreams: str | None = None):
        env = {"DATABASE_URL": database_url, "FABRIC_TCO_USERS": str(users_file)}
        self.apps = [AppServer(f"replica{i}", env, port=free_port(), production=True) for i in range(replicas)]
        self.nginx = Nginx([a.port for a in self.apps], upstreams=nginx_upstreams)
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
