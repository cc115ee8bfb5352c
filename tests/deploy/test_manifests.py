"""The deployment files, read as data: Dockerfile, .dockerignore, deploy/docker-compose.yml and
deploy/k8s/*.yaml agree with each other, with deploy/nginx.conf and with docs/deploy.md.

Nothing here needs Docker or a cluster. The last test runs checkov (from ``.venv-tools`` or PATH)
and checks that every check it fails is explained in docs/deploy.md's checkov table.
"""

from __future__ import annotations

import ipaddress
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import need
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
DOCKERFILE = ROOT / "Dockerfile"
DOCS = ROOT / "docs" / "deploy.md"
HEALTH = "/_stcore/health"
APP_UID = 10001
NAMESPACE = "fabric-tco"


# ---------------------------------------------------------------------------------------- helpers

def _compose() -> dict:
    return yaml.safe_load((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"))


def _k8s_docs() -> list[tuple[Path, dict]]:
    docs = []
    for path in sorted([*K8S.glob("*.yaml"), *K8S.glob("*.yml")]):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if doc is not None:
                docs.append((path, doc))
    return docs


def _k8s(kind: str, path: Path | None = None) -> list[dict]:
    return [d for p, d in _k8s_docs() if d.get("kind") == kind and (path is None or p == path)]


def _one(kind: str) -> dict:
    found = [d for p, d in _k8s_docs() if d.get("kind") == kind and not p.name.endswith(".example.yaml")]
    assert len(found) == 1, f"expected one {kind} in deploy/k8s, found {len(found)}"
    return found[0]


def _ingress(name: str) -> dict:
    found = [d for d in _k8s("Ingress") if d["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one Ingress {name}"
    return found[0]


def _pod() -> dict:
    return _one("Deployment")["spec"]["template"]


def _container() -> dict:
    containers = _pod()["spec"]["containers"]
    assert len(containers) == 1, "one container per pod"
    return containers[0]


def _container_port(port) -> int:
    """A container port by number or by name."""
    for p in _container()["ports"]:
        if port in (p["containerPort"], p.get("name")):
            return p["containerPort"]
    raise AssertionError(f"port {port!r} is not a port of the container")


def _default(value) -> int:
    """An integer, or the default of a compose ``${VAR:-default}``."""
    m = re.fullmatch(r"\$\{\w+:-(\d+)\}", str(value))
    return int(m.group(1) if m else value)


def _default_text(value) -> str:
    """A string, or the default of a compose ``${VAR:-default}``."""
    m = re.fullmatch(r"\$\{\w+:-([^}]+)\}", str(value))
    return m.group(1) if m else str(value)


def _short_volume(spec) -> tuple[str, str, bool]:
    """(source, target, read_only) of a compose volume in short or long syntax."""
    if isinstance(spec, dict):
        return spec["source"], spec["target"], bool(spec.get("read_only"))
    parts = spec.split(":")
    return parts[0], parts[1], len(parts) > 2 and "ro" in parts[2].split(",")


def _dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    lines, buf = [], ""
    for raw in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):  # a comment inside a continued instruction
            continue
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        lines.append(buf + line)
        buf = ""
    out = []
    for line in lines:
        word, _, rest = line.partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def _stages() -> list[list[tuple[str, str]]]:
    stages: list[list[tuple[str, str]]] = []
    for ins, args in _dockerfile_instructions():
        if ins == "FROM":
            stages.append([])
        if stages:
            stages[-1].append((ins, args))
    return stages


def _dockerignore_patterns() -> list[str]:
    pats = []
    for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            pats.append(line)
    return pats


def _glob_regex(pattern: str) -> re.Pattern:
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        elif pattern[i] == "[":
            j = pattern.index("]", i)
            out, i = out + pattern[i:j + 1], j + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


def _dockerignored(path: str) -> bool:
    """Whether Docker leaves ``path`` (relative to the context) out of the build context: the last
    matching pattern wins, ``!`` re-includes, a pattern matching a directory covers its contents."""
    parts = path.strip("/").split("/")
    prefixes = ["/".join(parts[: k + 1]) for k in range(len(parts))]
    ignored = False
    for pat in _dockerignore_patterns():
        negate = pat.startswith("!")
        rx = _glob_regex(pat.lstrip("!").strip("/"))
        if any(rx.fullmatch(p) for p in prefixes):
            ignored = not negate
    return ignored


def _env(container: dict, name: str) -> str:
    [value] = [e["value"] for e in container.get("env", []) if e["name"] == name]
    return value


def _nginx_locations() -> dict[str, str]:
    """deploy/nginx.conf's ``location`` blocks: '= /path' or '^~ /prefix' (or '/') → their body."""
    conf = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    return {f"{mod} {path}".strip(): body for mod, path, body in
            re.findall(r"location\s+(=|\^~)?\s*(\S+)\s*\{([^}]*)\}", conf)}


def _nginx_headers() -> dict[str, str]:
    conf = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    headers = dict(re.findall(r'add_header\s+([\w-]+)\s+"([^"]*)"\s+always;', conf))
    headers.pop("Set-Cookie", None)  # the routing cookie, not a security header
    return headers


# ------------------------------------------------------------------------------- docker compose

def test_compose_has_the_three_services():
    services = _compose()["services"]
    assert {"db", "app", "proxy"} <= set(services)


def test_compose_proxy_mounts_the_nginx_config_and_publishes_8080():
    proxy = _compose()["services"]["proxy"]
    mounts = {_short_volume(v)[1]: _short_volume(v) for v in proxy["volumes"]}
    assert mounts["/etc/nginx/nginx.conf"] == ("./nginx.conf", "/etc/nginx/nginx.conf", True)
    assert mounts["/etc/nginx/upstreams.conf"] == ("./upstreams.conf", "/etc/nginx/upstreams.conf", True)
    assert (DEPLOY / "nginx.conf").is_file() and (DEPLOY / "upstreams.conf").is_file()
    assert "listen 8080;" in (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    assert [str(p).split(":")[-2:] for p in proxy["ports"]] == [["8080", "8080"]]
    assert proxy["depends_on"]["app"]["condition"] == "service_healthy"


def test_compose_upstream_names_the_app_service():
    upstreams = (DEPLOY / "upstreams.conf").read_text(encoding="utf-8")
    assert re.search(r"^\s*server\s+app:8501\b", upstreams, re.M)


def test_compose_app_is_replicated_hidden_read_only_and_waits_for_the_db():
    compose = _compose()
    app = compose["services"]["app"]
    assert _default(app["deploy"]["replicas"]) >= 2
    assert app["build"]["context"] == ".." and app["build"]["dockerfile"] == "Dockerfile"
    assert (DEPLOY / app["build"]["context"] / app["build"]["dockerfile"]).resolve() == DOCKERFILE
    assert "ports" not in app, "the app is reachable through the proxy only"
    assert app["depends_on"]["db"]["condition"] == "service_healthy"
    assert app["read_only"] is True
    tmpfs = [t.split(":")[0] for t in app["tmpfs"]]
    assert "/tmp" in tmpfs and "/app/var" in tmpfs
    assert app["cap_drop"] == ["ALL"]
    assert "no-new-privileges:true" in app["security_opt"]
    assert "./secrets/app.env" in app["env_file"]
    # the accounts file: mounted read-only exactly where FABRIC_TCO_USERS points
    users = app["environment"]["FABRIC_TCO_USERS"]
    mounts = {_short_volume(v)[1]: _short_volume(v) for v in app.get("volumes", [])}
    assert mounts[users] == ("./secrets/users.json", users, True)
    # one network with the proxy, one with the database
    assert set(app["networks"]) & set(compose["services"]["proxy"]["networks"])
    assert set(app["networks"]) & set(compose["services"]["db"]["networks"])


def test_compose_db_takes_its_password_from_a_secret_file():
    compose = _compose()
    db = compose["services"]["db"]
    env = db["environment"]
    assert "POSTGRES_PASSWORD" not in env
    assert env["POSTGRES_PASSWORD_FILE"] == "/run/secrets/postgres_password"
    assert "postgres_password" in db["secrets"]
    assert compose["secrets"]["postgres_password"]["file"] == "./secrets/postgres_password"
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert any(_short_volume(v)[:2] == ("pgdata", "/var/lib/postgresql/data") for v in db["volumes"])
    assert "pgdata" in compose["volumes"]
    assert "ports" not in db
    assert all(compose["networks"][n].get("internal") for n in db["networks"]), "the database has no route out"


def test_compose_example_database_url_matches_the_db_service():
    env = dict(
        line.split("=", 1)
        for line in (DEPLOY / "secrets" / "app.env.example").read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    )
    db = _compose()["services"]["db"]["environment"]
    m = re.fullmatch(r"postgresql://([^:]+):[^@]+@db:5432/(\w+)", env["DATABASE_URL"])
    assert m and m.groups() == (db["POSTGRES_USER"], db["POSTGRES_DB"])
    assert "STREAMLIT_SERVER_COOKIE_SECRET" in env
    assert (DEPLOY / "secrets" / "postgres_password.example").is_file()
    assert (DEPLOY / "secrets" / "README.md").is_file()


def test_real_secret_files_are_git_ignored():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    real = ["deploy/secrets/app.env", "deploy/secrets/postgres_password", "deploy/secrets/users.json"]
    examples = ["deploy/secrets/app.env.example", "deploy/secrets/postgres_password.example",
                "deploy/secrets/README.md", "deploy/secrets/.gitignore"]
    for path in real:
        assert subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0, path
    for path in examples:
        assert subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 1, path


# ----------------------------------------------------------------------------------- Dockerfile

def test_dockerfile_is_multi_stage_on_tagged_bases():
    froms = [args for ins, args in _dockerfile_instructions() if ins == "FROM"]
    assert len(froms) >= 2
    for args in froms:
        image = args.split()[0]
        assert "$" not in image, "checkov cannot resolve an ARG in FROM"
        assert re.fullmatch(r"[\w./-]+:[\w.-]+(@sha256:[0-9a-f]{64})?", image), image
        assert not image.split("@")[0].endswith(":latest")


def test_dockerfile_builder_installs_runtime_requirements_only():
    builder = " ".join(args for ins, args in _stages()[0] if ins == "RUN")
    assert "requirements.lock" in builder and "requirements-dev" not in builder
    assert "--require-hashes" in builder  # the locked versions, nothing resolved at build time
    assert "--no-cache-dir" in builder


def test_dockerfile_final_stage_runs_as_non_root():
    users = [args for ins, args in _stages()[-1] if ins == "USER"]
    assert users, "the final stage sets USER"
    user = users[-1].split(":")[0]
    assert user not in ("0", "root")
    assert user == str(APP_UID), "the Kubernetes runAsUser and the compose chown use this uid"


def test_dockerfile_final_stage_has_no_compilers_and_no_apt_lists():
    final = _stages()[-1]
    run = " ".join(args for ins, args in final if ins == "RUN")
    installs = re.findall(r"apt-get install ([^&;|]+)", run)
    assert installs, "the final stage installs Chromium and the CJK font"
    packages = {w for line in installs for w in line.split() if not w.startswith("-")}
    assert {"chromium", "fonts-noto-cjk"} <= packages
    compilers = {"gcc", "g++", "build-essential", "make", "clang", "cc", "cpp"}
    assert not packages & compilers
    assert not any(p.endswith("-dev") for p in packages)
    assert "--no-install-recommends" in run
    assert "rm -rf /var/lib/apt/lists/*" in run


def test_dockerfile_healthcheck_asks_the_streamlit_health_endpoint():
    checks = [args for ins, args in _stages()[-1] if ins == "HEALTHCHECK"]
    assert len(checks) == 1
    options, _, cmd = checks[0].partition(" CMD ")
    argv = json.loads(cmd)  # exec form: no shell needed
    assert argv[0] == "python" and HEALTH in argv[-1] and "8501" in argv[-1]
    assert "curl" not in cmd and "wget" not in cmd
    assert "--timeout=" in options


def test_dockerfile_cmd_starts_serve_sh():
    final = _stages()[-1]
    cmd = [args for ins, args in final if ins == "CMD"][-1]
    assert json.loads(cmd) == ["scripts/serve.sh"], "exec form"
    assert ("EXPOSE", "8501") in final
    env = " ".join(args for ins, args in final if ins == "ENV")
    for setting in ("PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1", "BROWSER_PATH=/usr/bin/chromium",
                    "PATH=/opt/venv/bin:$PATH", "FABRIC_TCO_DB=/app/var/fabric-tco.db"):
        assert setting in env
    assert ("WORKDIR", "/app") in final


def test_dockerfile_copies_existing_files_that_the_context_keeps():
    copies = [args.split() for ins, args in _dockerfile_instructions() if ins == "COPY"]
    sources = [s for args in copies if not any(a.startswith("--from") for a in args)
               for s in [a for a in args if not a.startswith("--")][:-1]]
    assert sources and "." not in sources, "copy what the image needs, not the whole context"
    for src in sources:
        assert (ROOT / src).exists(), src
        assert not _dockerignored(src), f"{src} is copied but .dockerignore leaves it out"
    assert not any(".streamlit/secrets.toml" in s or s == ".streamlit" for s in sources)


def test_dockerignore_keeps_history_environments_tests_and_data_out():
    for path in (".git", ".git/config", ".venv", ".venv/bin/python", ".venv-tools", "tests",
                 "tests/deploy/test_manifests.py", "var", "var/fabric-tco.db", "out", "bench", "docs",
                 "deploy/secrets/app.env", "deploy/secrets/users.json", ".streamlit/secrets.toml",
                 "x.db", "store/__pycache__/cli.cpython-311.pyc", ".pytest_cache", ".hypothesis"):
        assert _dockerignored(path), path
    for path in ("app.py", "requirements.txt", "store/migrations/env.py", "scripts/serve.sh",
                 ".streamlit/config.toml", "costmodel/data"):
        assert not _dockerignored(path), path


# ---------------------------------------------------------------------------------- Kubernetes

def test_k8s_manifests_parse_and_share_one_namespace():
    docs = _k8s_docs()
    kinds = {d["kind"] for _, d in docs}
    assert {"Deployment", "Service", "Ingress", "NetworkPolicy", "PodDisruptionBudget", "Secret"} <= kinds
    for path, doc in docs:
        if doc["kind"] in ("Namespace", "Kustomization"):
            continue
        assert doc["metadata"].get("namespace") == NAMESPACE, f"{path.name}: {doc['kind']}"


def test_k8s_kustomization_lists_every_manifest_but_the_secret_template():
    kust = _one("Kustomization")
    expected = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml", "secret.example.yaml"}
    assert set(kust["resources"]) == expected


def test_k8s_deployment_is_replicated_and_probed_on_the_health_endpoint():
    deploy = _one("Deployment")
    assert deploy["spec"]["replicas"] >= 2
    c = _container()
    assert _container_port("http") == 8501
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        get = c[probe]["httpGet"]
        assert get["path"] == HEALTH, probe
        assert _container_port(get["port"]) == 8501, probe
    labels = _pod()["metadata"]["labels"]
    assert deploy["spec"]["selector"]["matchLabels"].items() <= labels.items()


def test_k8s_pod_is_locked_down():
    pod, c = _pod()["spec"], _container()
    assert pod["automountServiceAccountToken"] is False
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
    sc = c["securityContext"]
    assert sc["runAsNonRoot"] is True
    assert sc["runAsUser"] == APP_UID
    assert sc["readOnlyRootFilesystem"] is True
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"]["drop"] == ["ALL"]
    assert "add" not in sc["capabilities"]


def test_k8s_container_has_resource_requests_and_limits():
    res = _container()["resources"]
    for section in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(res[section]), section


def test_k8s_writable_paths_are_empty_dirs_and_secrets_are_read_only():
    pod, c = _pod()["spec"], _container()
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    for path in ("/tmp", "/app/var"):
        assert "emptyDir" in volumes[mounts[path]["name"]], path
    env = {e["name"]: e for e in c["env"]}
    users = Path(env["FABRIC_TCO_USERS"]["value"])
    mount = mounts[str(users.parent)]
    assert mount["readOnly"] is True
    assert volumes[mount["name"]]["secret"]["secretName"] == "fabric-tco-users"
    for name in ("DATABASE_URL", "STREAMLIT_SERVER_COOKIE_SECRET"):
        assert env[name]["valueFrom"]["secretKeyRef"]["name"] == "fabric-tco-env", name
    # the templates define exactly the keys the Deployment reads
    secrets = {s["metadata"]["name"]: s for s in _k8s("Secret", K8S / "secret.example.yaml")}
    assert set(secrets["fabric-tco-env"]["stringData"]) == {"DATABASE_URL", "STREAMLIT_SERVER_COOKIE_SECRET"}
    assert users.name in secrets["fabric-tco-users"]["stringData"]


def test_k8s_service_targets_the_container_port():
    svc = _one("Service")
    assert svc["spec"]["type"] == "ClusterIP"
    assert svc["spec"]["selector"].items() <= _pod()["metadata"]["labels"].items()
    ports = svc["spec"]["ports"]
    assert len(ports) == 1
    assert ports[0]["port"] == 8501
    assert _container_port(ports[0]["targetPort"]) == 8501


def test_k8s_ingress_is_sticky_with_websocket_timeouts_and_tls():
    ing = _ingress("fabric-tco")
    ann = ing["metadata"]["annotations"]
    p = "nginx.ingress.kubernetes.io/"
    assert ann[p + "affinity"] == "cookie"
    assert ann[p + "affinity-mode"] == "persistent"
    assert ann[p + "session-cookie-name"]
    assert int(ann[p + "proxy-read-timeout"]) >= 3600
    assert int(ann[p + "proxy-send-timeout"]) >= 3600
    assert ann[p + "proxy-body-size"] == "2m"
    assert not any(k.endswith("-snippet") for k in ann), "snippet annotations are off by default in ingress-nginx"
    assert ing["spec"]["tls"][0]["secretName"]
    svc = _one("Service")
    backend = ing["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == svc["metadata"]["name"]
    assert backend["port"].get("name") in [p.get("name") for p in svc["spec"]["ports"]] \
        or backend["port"].get("number") in [p["port"] for p in svc["spec"]["ports"]]


def test_k8s_ingress_sends_the_security_headers_of_nginx_conf():
    ing = _ingress("fabric-tco")
    ref = ing["metadata"]["annotations"]["nginx.ingress.kubernetes.io/custom-headers"]
    namespace, name = ref.split("/")
    maps = {(m["metadata"]["namespace"], m["metadata"]["name"]): m for m in _k8s("ConfigMap")}
    headers = maps[(namespace, name)]["data"]
    assert headers == _nginx_headers()
    assert "Content-Security-Policy" in headers and "X-Frame-Options" in headers


def test_k8s_network_policy_admits_the_ingress_controller_and_allows_db_and_dns():
    pol = _one("NetworkPolicy")
    spec = pol["spec"]
    assert spec["podSelector"]["matchLabels"].items() <= _pod()["metadata"]["labels"].items()
    assert set(spec["policyTypes"]) == {"Ingress", "Egress"}
    [rule] = spec["ingress"]
    assert [p["port"] for p in rule["ports"]] == [8501]
    assert all("namespaceSelector" in peer for peer in rule["from"])
    egress_ports = {(p.get("protocol", "TCP"), p["port"]) for r in spec["egress"] for p in r["ports"]}
    assert egress_ports == {("TCP", 5432), ("UDP", 53), ("TCP", 53)}


def test_k8s_disruption_budget_keeps_a_replica():
    pdb = _one("PodDisruptionBudget")
    assert 1 <= pdb["spec"]["minAvailable"] < _one("Deployment")["spec"]["replicas"]
    assert pdb["spec"]["selector"]["matchLabels"].items() <= _pod()["metadata"]["labels"].items()


# ------------------------------------------------------------------------------------- checkov

def _checkov() -> str | None:
    local = ROOT / ".venv-tools" / "bin" / "checkov"
    return str(local) if local.exists() else shutil.which("checkov")


def _documented_checks() -> set[str]:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("\n## checkov", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return {m for line in rows for m in re.findall(r"\bCKV2?_[A-Z0-9_]+\b", line.split("|")[1])}


def _run_checkov(binary: str, *args: str) -> dict:
    env = dict(os.environ, BC_SKIP_MAPPING="TRUE", CHECKOV_RUN_SCA_PACKAGE_SCAN_V2="false", LOG_LEVEL="WARNING")
    proc = subprocess.run([binary, *args, "--quiet", "--compact", "-o", "json", "--skip-download"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    reports = report if isinstance(report, list) else [report]
    [report] = reports
    return report


def test_checkov_failures_are_explained_in_docs():
    binary = _checkov()
    if binary is None:
        need.missing("checkov is not installed (make install-dev puts it in .venv-tools)")
    reported: dict[str, set[str]] = {}
    for args, min_resources in ((["-d", "deploy/k8s", "--framework", "kubernetes"], 8),
                                (["-f", "Dockerfile", "--framework", "dockerfile"], 1)):
        report = _run_checkov(binary, *args)
        summary = report["summary"]
        assert summary["parsing_errors"] == 0, args
        assert summary["resource_count"] >= min_resources, f"checkov scanned too little: {args} {summary}"
        results = report.get("results", {})
        for check in results.get("failed_checks", []) + results.get("skipped_checks", []):
            reported.setdefault(check["check_id"], set()).add(check["resource"])
    documented = _documented_checks()
    missing = {k: sorted(v) for k, v in reported.items() if k not in documented}
    assert not missing, f"checkov checks failing but not explained in docs/deploy.md's table: {missing}"
    stale = documented - set(reported)
    assert not stale, f"docs/deploy.md's checkov table lists checks that pass now: {sorted(stale)}"


# ------------------------------------------------------------- client address and internal endpoints

STCORE_OPEN = {"/_stcore/health": "=", "/_stcore/host-config": "=", "/_stcore/stream": "=",
               "/_stcore/upload_file/": "^~", "/_stcore/bidi-components/": "^~"}


def test_nginx_replaces_the_clients_forwarded_for_and_closes_internal_endpoints():
    conf = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    assert re.search(r"^\s*proxy_set_header X-Forwarded-For \$remote_addr;", conf, re.M)
    assert "$proxy_add_x_forwarded_for" not in conf, "appending keeps the address the client wrote"
    locations = _nginx_locations()
    opened = {loc.split()[1]: loc.split()[0] for loc, body in locations.items()
              if loc.split()[-1].startswith("/_stcore") and "proxy_pass" in body}
    assert opened == STCORE_OPEN
    assert "return 404;" in locations["^~ /_stcore/"]
    assert "proxy_set_header" not in "".join(locations.values()), "a location's own headers drop the server's"
    assert "add_header" not in "".join(locations.values())


def test_compose_replicas_trust_forwarded_for_from_the_proxy_only():
    compose = _compose()
    trusted = _default_text(compose["services"]["app"]["environment"]["FORWARDED_ALLOW_IPS"])
    proxy_ip = _default_text(compose["services"]["proxy"]["networks"]["web"]["ipv4_address"])
    assert trusted == proxy_ip, "the replicas trust exactly the proxy's address"
    [pool] = compose["networks"]["web"]["ipam"]["config"]
    subnet = ipaddress.ip_network(_default_text(pool["subnet"]))
    dynamic = ipaddress.ip_network(_default_text(pool["ip_range"]))
    assert ipaddress.ip_address(proxy_ip) in subnet and dynamic.subnet_of(subnet)
    assert ipaddress.ip_address(proxy_ip) not in dynamic, "a replica could be given the proxy's address"


def test_k8s_replicas_trust_forwarded_for_from_the_pod_network_only():
    trusted = _env(_container(), "FORWARDED_ALLOW_IPS").split(",")
    assert "*" not in trusted
    for net in map(ipaddress.ip_network, trusted):
        assert not net.is_global and net.prefixlen >= 7, net
    ann = _ingress("fabric-tco")["metadata"]["annotations"]
    assert ann.get("nginx.ingress.kubernetes.io/use-forwarded-headers", "false") == "false"


def _route(path: str) -> str:
    """The Ingress that serves ``path``, as ingress-nginx picks it: an Exact path, else the longest Prefix."""
    rules = [(ing["metadata"]["name"], p) for ing in _k8s("Ingress")
             for rule in ing["spec"]["rules"] for p in rule["http"]["paths"]]
    for name, p in rules:
        if p["pathType"] == "Exact" and p["path"] == path:
            return name
    prefixes = [(len(p["path"].rstrip("/")), name) for name, p in rules if p["pathType"] == "Prefix"
                and (path + "/").startswith(p["path"].rstrip("/") + "/")]
    return max(prefixes)[1]


def test_k8s_ingress_closes_internal_endpoints_like_nginx_conf():
    deny = _ingress("fabric-tco-internal")
    assert deny["metadata"]["annotations"]["nginx.ingress.kubernetes.io/denylist-source-range"] == "0.0.0.0/0,::/0"
    for path in STCORE_OPEN:
        assert _route(path) == "fabric-tco", path
    for path in ("/", "/scenarios", "/_stcore/upload_file/abc/def", "/_stcore/bidi-components/x/y.js",
                 "/static/js/index.js"):
        assert _route(path) == "fabric-tco", path
    for path in ("/_stcore/metrics", "/_stcore/agent/mcp", "/_stcore/agent/openapi.json",
                 "/_stcore/script-health-check", "/_stcore/health/x"):
        assert _route(path) == "fabric-tco-internal", path


@pytest.mark.parametrize("value", ["*", "10.0.0.1,*"])
def test_serve_sh_refuses_to_trust_every_forwarding_address(value):
    env = {k: v for k, v in os.environ.items() if k != "PYTHON"}
    env.update(FORWARDED_ALLOW_IPS=value, PYTHON="/bin/false")  # must stop before it starts anything
    out = subprocess.run(["sh", str(ROOT / "scripts" / "serve.sh")], env=env, capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 2
    assert "FORWARDED_ALLOW_IPS='*'" in out.stderr and "proxy's address" in out.stderr


# ---------------------------------------------------------------------- the public origin passed on

def test_nginx_passes_the_public_origin_the_replicas_check_websockets_against():
    """The replicas accept a websocket or sign-in POST only from their own origin (Host + scheme)
    unless FABRIC_TCO_ORIGINS lists others: nginx must pass the browser's Host with its port, the
    scheme the browser used (a TLS terminator's X-Forwarded-Proto, else nginx's own) and the
    browser's Origin untouched."""
    from webui.session import origin_guard

    conf = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    assert re.search(r"^\s*proxy_set_header Host \$fabric_host;", conf, re.M)
    assert re.search(r"map \$http_host \$fabric_host \{\s*\"\"\s+\$host;\s*default\s+\$http_host;", conf)
    assert re.search(r"^\s*proxy_set_header X-Forwarded-Proto \$fabric_proto;", conf, re.M)
    proto = re.search(r"map \$http_x_forwarded_proto \$fabric_proto \{\s*\"([^\"]+)\"\s+\$http_x_forwarded_proto;"
                      r"\s*default\s+\$scheme;", conf)
    assert proto, "the scheme map is missing"
    accepted = re.compile(proto.group(1).lstrip("~"))
    assert accepted.match("https") and accepted.match("http") and not accepted.match("javascript")
    assert not re.search(r"proxy_set_header\s+Origin\b", conf, re.I), "nginx must not rewrite the Origin"
    assert not re.search(r"proxy_hide_header|proxy_pass_request_headers\s+off", conf)
    assert origin_guard.ENV_ORIGINS not in _compose()["services"]["app"].get("environment", {}), \
        "compose keeps the default (Host + scheme from nginx); a fixed list is documented in a comment"


def test_k8s_replicas_accept_exactly_the_ingress_public_origin():
    from webui.session import origin_guard

    value = _env(_container(), origin_guard.ENV_ORIGINS)
    origins = origin_guard.configured({origin_guard.ENV_ORIGINS: value})
    ing = _ingress("fabric-tco")
    tls_hosts = {h for t in ing["spec"]["tls"] for h in t["hosts"]}
    rule_hosts = {r["host"] for r in ing["spec"]["rules"]}
    assert rule_hosts <= tls_hosts
    ann = ing["metadata"]["annotations"]
    assert ann["nginx.ingress.kubernetes.io/force-ssl-redirect"] == "true"  # the browser only sees https
    assert origins == {f"https://{h}" for h in rule_hosts}
    assert "http://tco.example.com" not in origins and "https://tco.example.com:8443" not in origins
