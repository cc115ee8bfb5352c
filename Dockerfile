# syntax=docker/dockerfile:1
# Fabric TCO Planner: the Streamlit app, with Debian's Chromium and a CJK font for the PDF report.
#
#   docker build -t fabric-tco:1.0.0 .
#   docker run --rm -p 8501:8501 --read-only --tmpfs /tmp --tmpfs /app/var --shm-size 256m fabric-tco:1.0.0
#
# Both stages use the same base image, pinned by tag (Debian bookworm, Python 3.11) — not by digest:
# see docs/deploy.md ("Base images") for pinning the digest at release time.

# ---- stage 1: the virtual environment (runtime requirements only; every one ships a wheel) ----
FROM python:3.11-slim-bookworm AS builder
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
COPY requirements.txt /tmp/requirements.txt
RUN pip install --no-cache-dir -r /tmp/requirements.txt

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

# chromium + fonts-noto-cjk: the PDF report (Playwright and kaleido drive /usr/bin/chromium);
# tini: PID 1 that forwards signals and reaps Chromium's orphaned children;
# ca-certificates: TLS to a managed PostgreSQL (sslmode=verify-full with the system roots).
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-noto-cjk tini ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 app \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin app

COPY --from=builder /opt/venv /opt/venv

WORKDIR /app
# The source is owned by root and read-only for the app user; .streamlit/secrets.toml is never
# copied (mount it at run time when OpenID Connect is configured).
COPY app.py ./
COPY .streamlit/config.toml .streamlit/config.toml
COPY app_pages app_pages
COPY costmodel costmodel
COPY webui webui
COPY store store
COPY scripts/serve.sh scripts/serve.sh
# bytecode compiled once here (the root filesystem is read-only at run time); /app/var is the only
# writable directory under /app (the SQLite fallback and users.json when no volume is mounted)
RUN python -m compileall -q app.py app_pages costmodel webui store \
 && chmod -R a+rX,go-w /app \
 && chmod 0755 scripts/serve.sh \
 && mkdir -p /app/var \
 && chown 10001:10001 /app/var \
 && chmod 0700 /app/var

USER 10001:10001
EXPOSE 8501

# no curl in the image: ask the server's own health endpoint with Python
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import os, sys, urllib.request; url = 'http://127.0.0.1:' + os.environ.get('PORT', '8501') + '/_stcore/health'; sys.exit(0 if urllib.request.urlopen(url, timeout=4).status == 200 else 1)"]

ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["scripts/serve.sh"]
