"""The container image, built and run for real with Debian's podman (no registry is reached).

``build_image`` runs ``scripts/image/build.sh`` (a local stand-in for the base image, ``--pull=never``,
``--format docker``, the layer cache reused). ``compose_run_args`` turns the ``app`` service of
``deploy/docker-compose.yml`` into podman flags, so the tests run the image exactly as compose does:
read-only root, the tmpfs mounts, ``cap_drop``, ``security_opt``, ``shm_size``, the memory limit.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import yaml
from browser_helpers import ROOT
from need import missing

PODMAN = ROOT / "scripts" / "image" / "podman.sh"
BUILD = ROOT / "scripts" / "image" / "build.sh"
COMPOSE = ROOT / "deploy" / "docker-compose.yml"
TAG = "localhost/fabric-tco:test"
BUILD_TIMEOUT_S = 40 * 60  # cold: ~4 min on 2 cores with a warm network; generous for a slow mirror


def require_podman() -> None:
    """Skip (fail under CI=true) when podman, runc or mmdebstrap is missing."""
    absent = [tool for tool in ("podman", "runc", "mmdebstrap") if shutil.which(tool) is None
              and not Path("/usr/sbin", tool).exists()]
    if absent:
        missing(f"the image tests need {', '.join(absent)} (Debian packages; scripts/system-deps.sh installs them)")


def podman(*args: str, check: bool = True, timeout: float = 300, input: bytes | None = None,
           ) -> subprocess.CompletedProcess[bytes]:
    """Run ``scripts/image/podman.sh ARGS`` (bytes out); raise with its stderr when ``check`` and it fails."""
    proc = subprocess.run([str(PODMAN), *args], capture_output=True, timeout=timeout, input=input, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(f"podman {' '.join(args[:3])} … exit {proc.returncode}: "
                             f"{proc.stderr.decode(errors='replace')[-3000:]}")
    return proc


def build_image() -> tuple[str, float]:
    """Build (or reuse, from ``FABRIC_TCO_TEST_IMAGE``) the image; returns (tag, seconds taken)."""
    given = os.environ.get("FABRIC_TCO_TEST_IMAGE")
    if given:  # an image built elsewhere, e.g. to run these tests against an older Dockerfile
        return given, 0.0
    start = time.monotonic()
    log = ROOT / "out" / "image-build.log"
    log.parent.mkdir(exist_ok=True)
    with open(log, "wb") as out:
        proc = subprocess.run(["bash", str(BUILD), TAG], stdout=out, stderr=subprocess.STDOUT, cwd=ROOT,
                              timeout=BUILD_TIMEOUT_S, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"the image build failed (exit {proc.returncode}): "
                             f"{log.read_text(errors='replace')[-4000:]}")
    return TAG, time.monotonic() - start


def compose_app() -> dict:
    """The ``app`` service of deploy/docker-compose.yml."""
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]["app"]


def compose_run_args(with_volumes: bool) -> list[str]:
    """podman flags for the compose ``app`` service's hardening, mounts and environment.

    ``with_volumes`` adds the service's bind mounts (their ``source`` relative to deploy/) — the
    caller passes ``-v`` itself when it wants other files there. The brand folder the environment
    names (``FABRIC_TCO_ASSETS``) is mounted either way: it is part of the service's configuration."""
    app = compose_app()
    args = ["--read-only"] if app.get("read_only") else []
    for tmpfs in app.get("tmpfs", []):
        args += ["--tmpfs", tmpfs]
    for cap in app.get("cap_drop", []):
        args += ["--cap-drop", cap]
    for opt in app.get("security_opt", []):
        args += ["--security-opt", opt]
    if "shm_size" in app:
        args += ["--shm-size", str(app["shm_size"])]
    limits = app.get("deploy", {}).get("resources", {}).get("limits", {})
    if "memory" in limits:
        args += ["--memory", str(limits["memory"])]
    for key, value in (app.get("environment") or {}).items():
        args += ["-e", f"{key}={value}"]
    brand = (app.get("environment") or {}).get("FABRIC_TCO_ASSETS")
    for vol in app.get("volumes", []):
        if with_volumes or vol["target"] == brand:
            ro = ":ro" if vol.get("read_only") else ""
            args += ["-v", f"{(COMPOSE.parent / _expanded(vol['source'])).resolve()}:{vol['target']}{ro}"]
    return args


def _expanded(source: str) -> str:
    """A compose path with its ``${NAME:-default}`` variables filled from the environment, as compose does."""
    return re.sub(r"\$\{(\w+):-([^}]*)\}", lambda m: os.environ.get(m.group(1)) or m.group(2), source)


class Container:
    """One container of the image, detached; ``stop`` removes it."""

    def __init__(self, image: str, name: str, args: list[str]):
        self.name = name
        podman("rm", "--force", "--ignore", name)
        self.started = time.monotonic()
        podman("run", "--detach", "--name", name, *args, image)

    def wait_healthy(self, timeout_s: float = 180) -> float:
        """Run the image's HEALTHCHECK (no systemd timer here) until it passes; seconds since start."""
        deadline = self.started + timeout_s
        while time.monotonic() < deadline:
            if podman("healthcheck", "run", self.name, check=False).returncode == 0:
                return time.monotonic() - self.started
            state = podman("inspect", "--format", "{{.State.Status}}", self.name).stdout.decode().strip()
            if state != "running":
                raise AssertionError(f"container {self.name} is {state}: {self.logs()[-3000:]}")
            time.sleep(0.5)
        raise AssertionError(f"container {self.name} not healthy after {timeout_s} s: {self.logs()[-3000:]}")

    def inspect(self, fmt: str) -> str:
        return podman("inspect", "--format", fmt, self.name).stdout.decode().strip()

    def exec(self, *cmd: str, input: bytes | None = None, timeout: float = 300) -> subprocess.CompletedProcess[bytes]:
        """``podman exec`` as the image's user (uid 10001), not checked."""
        return podman("exec", *(["--interactive"] if input is not None else []), self.name, *cmd,
                      check=False, input=input, timeout=timeout)

    def memory_mib(self) -> float:
        """The container's memory use (cgroup, as ``podman stats`` reports it), MiB."""
        out = podman("stats", "--no-stream", "--no-reset", "--format", "{{.MemUsage}}", self.name).stdout.decode()
        used = out.split("/")[0].strip()
        units = {"kB": 1 / 1024, "KB": 1 / 1024, "MB": 1000**2 / 1024**2, "MiB": 1, "GB": 1000**3 / 1024**2,
                 "GiB": 1024, "B": 1 / 1024**2}
        for unit, factor in sorted(units.items(), key=lambda kv: -len(kv[0])):
            if used.endswith(unit):
                return float(used[: -len(unit)]) * factor
        raise AssertionError(f"podman stats said {out!r}")

    def logs(self) -> str:
        proc = podman("logs", self.name, check=False)
        return (proc.stdout + proc.stderr).decode(errors="replace")

    def stop(self) -> None:
        podman("rm", "--force", "--time", "10", "--ignore", self.name, check=False)
