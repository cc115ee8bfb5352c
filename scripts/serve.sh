#!/bin/sh
# Production start: the same `streamlit run server.py` (app.py + the sign-in cookie routes) as
# `make run`, with the hardening flags
# (most are also in .streamlit/config.toml; repeated here so a stray config cannot turn them off).
# Used by the Dockerfile's CMD and by the deployment tests. PORT / ADDRESS / PYTHON / FABRIC_TCO_ASSETS may be set.
# runner.postScriptGC false: Streamlit's full gc.collect() after every run cost ~95 of ~110 ms CPU
# per rerun here; Python's own generational GC still runs (bench/load_bench.py, docs/deploy.md).
set -eu
cd "$(dirname "$0")/.."
# uvicorn (under Streamlit) takes X-Forwarded-For from the addresses in FORWARDED_ALLOW_IPS
# (default: loopback); '*' would make it believe the leftmost address, which the client writes.
case "${FORWARDED_ALLOW_IPS:-}" in
  *'*'*)
    echo "serve.sh: FORWARDED_ALLOW_IPS='*' lets any client choose the address the sign-in throttle counts;" \
         "list the proxy's address(es) instead (docs/deploy.md, Hardening)" >&2
    exit 2 ;;
esac
# the brand's colours as Streamlit's theme (assets/brand.yaml, or the folder FABRIC_TCO_ASSETS names):
# a broken brand folder stops the start here, with the file and field named (set -e)
THEME_FLAGS=$("${PYTHON:-python}" -m webui.reports.brand --theme-flags)
# shellcheck disable=SC2086  # hex colours, checked by the brand loader: no spaces, no glob characters
exec "${PYTHON:-python}" -m streamlit run server.py $THEME_FLAGS \
  --server.port "${PORT:-8501}" \
  --server.address "${ADDRESS:-0.0.0.0}" \
  --server.headless true \
  --server.enableXsrfProtection true \
  --server.enableCORS true \
  --server.maxUploadSize 1 \
  --server.fileWatcherType none \
  --server.runOnSave false \
  --client.showErrorDetails none \
  --client.toolbarMode viewer \
  --browser.gatherUsageStats false \
  --global.developmentMode false \
  --runner.postScriptGC false
