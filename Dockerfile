# Fabric TCO Planner: the Streamlit app, with Debian's Chromium and a CJK font for the PDF report.
#
#   docker build -t fabric-tco:1.0.0 .
#   docker run --rm -p 8501:8501 --read-only --tmpfs /tmp --tmpfs /app/var:mode=1777 \
#     --shm-size 256m fabric-tco:1.0.0
#
# Built and run for real by tests/image/ with Debian's podman (`make image`, docs/deploy.md "Building
# the image"). Both stages use the same base image, pinned by tag (Debian bookworm, Python 3.11) — not
# by digest: see docs/deploy.md ("Base images") for pinning the digest at release time. Python is only
# ever called as `python3 -m venv` and then the venv's own: the base's python may live in /usr/local
# (the official image) or /usr (the Debian stand-in that scripts/image/base.sh builds offline).
# No `# syntax=` line: BuildKit would fetch that frontend from a registry at build time.

# ---- stage 1: the virtual environment (the locked runtime requirements only; every one ships a wheel) ----
FROM python:3.11-slim-bookworm AS builder
# PIP_CERT: the system CA bundle (a build may mount the build host's bundle over it, read-only,
# when its network needs that; it is never copied into an image)
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt
RUN python3 -m venv /opt/venv
# requirements.lock (`make lock`): every package of requirements.txt and its dependencies, pinned
# with hashes; --require-hashes --no-deps --only-binary: exactly those wheels, nothing resolved here
COPY requirements.lock /tmp/requirements.lock
RUN /opt/venv/bin/pip install --no-cache-dir --require-hashes --no-deps --only-binary=:all: \
      -r /tmp/requirements.lock \
 && /opt/venv/bin/pip check \
 && /opt/venv/bin/pip uninstall --yes --quiet pip setuptools
# the packages' own test suites and C headers are never used at run time (~77 MB)
RUN find /opt/venv/lib -depth -type d -name tests -path '*/site-packages/*' -exec rm -rf {} + \
 && rm -rf /opt/venv/lib/python3*/site-packages/pyarrow/include

# ---- stage 2: the runtime image (no compilers, no pip cache, no apt lists) ----
FROM python:3.11-slim-bookworm
ARG VERSION=1.0.0
LABEL org.opencontainers.image.title="Fabric TCO Planner" \
      org.opencontainers.image.description="5-year TCO of a GPU training cluster per network fabric (TCP Ethernet, RoCE, iWARP, InfiniBand): Streamlit dashboard and cost model" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="LicenseRef-Proprietary" \
      org.opencontainers.image.base.name="docker.io/library/python:3.11-slim-bookworm"

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH \
    BROWSER_PATH=/usr/bin/chromium \
    FABRIC_TCO_DB=/app/var/fabric-tco.db \
    HOME=/tmp

ARG DEBIAN_FRONTEND=noninteractive
# chromium + fonts-noto-cjk: the PDF report (webui/reports/cdp.py drives /usr/bin/chromium over its pipe);
# util-linux (essential, already there) gives chrt: Chromium prints under SCHED_IDLE;
# tini: PID 1 that forwards signals and reaps Chromium's orphaned children;
# ca-certificates: TLS to a managed PostgreSQL (sslmode=verify-full with the system roots).
# Size: no documentation, manual pages or message catalogues (the copyright files stay), and
# Mesa's OpenGL drivers with the LLVM and Z3 libraries they pull in (~165 MB) are removed: headless
# Chromium here never uses a GPU driver (it rasterises in software; its own SwiftShader ships in
# the chromium package). tests/image/ checks the PDF report inside the image after these cuts.
RUN printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright' \
      'path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/info/*' 'path-exclude=/usr/share/locale/*' \
      'path-exclude=/usr/share/lintian/*' > /etc/dpkg/dpkg.cfg.d/01-fabric-tco-slim \
 && apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-noto-cjk tini ca-certificates \
 && dpkg --purge --force-depends libgl1-mesa-dri libllvm15 libz3-4 \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/cache/debconf/*-old /var/log/apt /var/log/dpkg.log \
 && groupadd --system --gid 10001 app \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin app

COPY --from=builder /opt/venv /opt/venv

WORKDIR /app
# The source is owned by root and read-only for the app user; .streamlit/secrets.toml is never
# copied (mount it at run time when OpenID Connect is configured).
COPY app.py server.py ./
COPY .streamlit/config.toml .streamlit/config.toml
COPY app_pages app_pages
COPY costmodel costmodel
COPY webui webui
COPY store store
# the default brand (app header and theme, PDF, deck); a deployment mounts its own folder and sets
# FABRIC_TCO_ASSETS to it (docs/deploy.md); scripts/serve.sh turns its colours into the app's theme
COPY assets assets
COPY scripts/serve.sh scripts/serve.sh
# bytecode compiled once here (the root filesystem is read-only at run time); /app/var is the only
# writable directory under /app (the SQLite fallback and users.json when no volume is mounted).
# /app/var is 1777 (sticky, like /tmp): a tmpfs mounted there takes the mode of the image's
# directory but belongs to root, so the former 0700 directory of uid 10001 became a tmpfs the app
# could not write; the app's own files in it are 0600 (store/accounts.py, store's SQLite files).
RUN python -m compileall -q app.py server.py app_pages costmodel webui store \
 && chmod -R a+rX,go-w /app \
 && chmod 0755 scripts/serve.sh \
 && mkdir -p /app/var \
 && chmod 1777 /app/var

USER 10001:10001
EXPOSE 8501

# no curl in the image: ask the server's own health endpoint with Python
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import os, sys, urllib.request; url = 'http://127.0.0.1:' + os.environ.get('PORT', '8501') + '/_stcore/health'; sys.exit(0 if urllib.request.urlopen(url, timeout=4).status == 200 else 1)"]

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["scripts/serve.sh"]
