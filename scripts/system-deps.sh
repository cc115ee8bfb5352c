#!/usr/bin/env bash
# Debian packages the test suite needs: Chromium for the browser tests (Playwright drives
# /usr/bin/chromium; nothing downloads a browser), a CJK font so Chinese pages render as text,
# the PostgreSQL server the store's tests start on a loopback port, and nginx for the deployment
# tests (deploy/nginx.conf in front of two app replicas), and podman + runc + mmdebstrap for the
# container-image tests (tests/image: the Dockerfile built and run for real; mmdebstrap makes the
# base image's local stand-in, scripts/image/base.sh), and LibreOffice Calc, whose headless soffice
# recalculates the exported workbooks (tests/unit/test_workbook_recalc.py).
# Installs what is missing when it can (root or sudo); otherwise says what to install.
set -uo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1 || need+=(nginx)
command -v podman >/dev/null 2>&1 || need+=(podman)
[ -x /usr/sbin/runc ] || command -v runc >/dev/null 2>&1 || need+=(runc)
command -v mmdebstrap >/dev/null 2>&1 || need+=(mmdebstrap)
command -v soffice >/dev/null 2>&1 || need+=(libreoffice-calc)
# Impress opens the PowerPoint deck (tests/unit/test_deck.py converts it to PDF)
dpkg -s libreoffice-impress >/dev/null 2>&1 || need+=(libreoffice-impress)
if ! ls /usr/share/fonts/opentype/noto/NotoSansCJK-*.ttc >/dev/null 2>&1 \
   && ! (command -v fc-list >/dev/null 2>&1 && fc-list | grep -qi "Noto Sans CJK"); then need+=(fonts-noto-cjk); fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
  echo "note: install ${need[*]} (Debian) to run the browser, PostgreSQL, deployment, image and workbook tests; without them they skip (and fail under CI=true)"
  exit 0
fi
echo "installing Debian packages: ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq || echo "warning: apt-get update failed"
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null \
  || echo "warning: could not install ${need[*]}; the tests that need them will skip (or fail under CI=true)"
exit 0
