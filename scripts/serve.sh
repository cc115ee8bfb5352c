#!/bin/sh
# Production start: the same `streamlit run server.py` (app.py + the sign-in cookie routes) as
# `make run`, with the hardening flags
# (most are also in .streamlit/config.toml; repeated here so a stray config cannot turn them off).
# Used by the Dockerfile's CMD and by the deployment tests. PORT / ADDRESS / PYTHON may be set.
# runner.postScriptGC false: Streamlit's full gc.collect() after every run cost ~95 of ~110 ms CPU
# per rerun here; Python's own generational GC still runs (bench/load_bench.py, docs/deploy.md).
set -eu
cd "$(dirname "$0")/.."
exec "${PYTHON:-python}" -m streamlit run server.py \
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
