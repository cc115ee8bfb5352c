#!/usr/bin/env bash
# Build the image with Debian's podman, offline from any container registry:
#   scripts/image/build.sh [TAG]        (default fabric-tco:test; `make image` calls it)
# - the base python:3.11-slim-bookworm is never pulled (--pull=never): scripts/image/base.sh makes a
#   local stand-in when it is not there;
# - --format docker: the OCI format drops HEALTHCHECK;
# - the build host's CA bundle is mounted read-only into the build steps (pip and apt may need it
#   behind a TLS-intercepting proxy); it is never copied into the image;
# - the layer cache makes a rebuild with unchanged requirements.lock take seconds.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tag="${1:-fabric-tco:test}"
bash "$root/scripts/image/base.sh"
ca=/etc/ssl/certs/ca-certificates.crt
mount=()
[ -f "$ca" ] && mount=(-v "$ca:$ca:ro")
start=$(date +%s)
"$root/scripts/image/podman.sh" build --pull=never --format docker "${mount[@]}" \
  -t "$tag" -f "$root/Dockerfile" "$root"
echo "built $tag in $(( $(date +%s) - start )) s"
