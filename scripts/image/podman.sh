#!/usr/bin/env bash
# podman with the settings this kind of machine needs (a root container host without systemd,
# cgroup v1 and hard rlimits below podman's defaults):
#   - runtime runc: crun refuses the machine's cgroup layout;
#   - default_ulimits nofile = the hard limit of this shell, nproc = 32768: podman's defaults
#     exceed the hard limits and every container would fail to start.
# The config is written to $FABRIC_TCO_PODMAN_CONF (default /tmp/fabric-tco-containers.conf) and
# passed with CONTAINERS_CONF; an existing CONTAINERS_CONF is respected. Usage: podman.sh ARGS...
set -euo pipefail
if [ -z "${CONTAINERS_CONF:-}" ]; then
  conf="${FABRIC_TCO_PODMAN_CONF:-/tmp/fabric-tco-containers.conf}"
  nofile="$(ulimit -Hn)"
  [ "$nofile" = unlimited ] && nofile=1048576
  want="[containers]
default_ulimits = [\"nofile=${nofile}:${nofile}\", \"nproc=32768:32768\"]

[engine]
runtime = \"runc\""
  if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$want" ]; then
    printf '%s\n' "$want" > "$conf.$$" && mv "$conf.$$" "$conf"
  fi
  export CONTAINERS_CONF="$conf"
fi
exec podman "$@"
