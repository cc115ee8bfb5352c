#!/usr/bin/env bash
# The Dockerfile's base image, python:3.11-slim-bookworm, when no container registry can be
# reached: a local stand-in made from Debian's own packages (mmdebstrap --variant=minbase with
# python3, python3-venv, python-is-python3 and ca-certificates) and imported under that very name,
# so `podman build --pull=never` resolves the Dockerfile's FROM. Does nothing when an image of
# that name is already there (the real one, pulled, or a stand-in made earlier).
# Python is Debian's 3.11 in /usr/bin (the real image has its own in /usr/local/bin): the
# Dockerfile calls `python3 -m venv` and then only the venv's python, so it works on both.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
name="${BASE_IMAGE:-docker.io/library/python:3.11-slim-bookworm}"
if "$here/podman.sh" image exists "$name"; then exit 0; fi
for tool in mmdebstrap podman; do
  command -v "$tool" >/dev/null || { echo "error: $tool is missing (bash scripts/system-deps.sh installs it)" >&2; exit 1; }
done
work="$(mktemp -d /tmp/fabric-tco-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security="${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
echo "building the stand-in for $name with mmdebstrap (Debian bookworm, minbase)"
# the same sources as Debian's own bookworm images: main, updates and security (Chromium's
# updates come through bookworm-security); merged /usr by symlinks and usr-is-merged, as in Debian's
# images (mmdebstrap's default would install usrmerge, and with it perl, ~50 MB the real base lacks)
hooks=/usr/share/mmdebstrap/hooks/merged-usr
mmdebstrap --quiet --variant=minbase --include=python3,python3-venv,python-is-python3,ca-certificates \
  $( [ -d "$hooks" ] && echo "--hook-dir=$hooks" ) bookworm "$work/rootfs.tar" \
  "deb $mirror bookworm main" "deb $mirror bookworm-updates main" "deb $security bookworm-security main"
"$here/podman.sh" import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV LANG=C.UTF-8' \
  --change 'CMD ["python3"]' \
  --message "local stand-in for $name (mmdebstrap minbase bookworm + Debian python3)" \
  "$work/rootfs.tar" "$name" >/dev/null
echo "imported $name"
