#!/bin/sh
# The CPU worker's entrypoint (docker/web.Dockerfile, target worker-cpu): make the container's own cgroup
# writable, so that the worker judges every CPU job in a cgroup of its own as the tested default does
# (runner/sandbox/cgroup.py, docs/platform.md "Workers: what they judge with"), then exec the worker.
#
# Needs what docker/compose.yaml gives the service: a cgroup namespace of its own (`cgroup: private`, so that
# /sys/fs/cgroup shows the container's cgroup and nothing above it), CAP_SYS_ADMIN (to remount it writable),
# and root. Without them it changes nothing and the worker's start check says what is missing.
set -eu
CG=/sys/fs/cgroup

if [ "$(stat -fc %T "$CG")" = cgroup2fs ]; then
  # A cgroup v2 host: Docker mounts the container's cgroup here, read-only.
  mount -o remount,rw "$CG" 2>/dev/null || true
  V2=$CG
else
  # A hybrid host (cgroup v1 controllers, the unified hierarchy beside them): Docker mounts the v1
  # hierarchies read-only and not the unified one. The job's memory and process bounds live in v1 there.
  for controller in memory pids; do
    if [ -d "$CG/$controller" ]; then mount -o remount,bind,rw "$CG/$controller" 2>/dev/null || true; fi
  done
  V2=$CG/unified
  if ! grep -q " $V2 cgroup2 " /proc/self/mounts; then
    # Docker's tmpfs here is mode 0555 and the container has no CAP_DAC_OVERRIDE: its owner opens it a moment.
    if chmod 0755 "$CG" 2>/dev/null && mkdir -p "$V2" && chmod 0555 "$CG"; then
      mount -t cgroup2 cgroup2 "$V2" 2>/dev/null || true
    fi
  fi
fi

# The worker leaves the namespace's root cgroup for a leaf: a cgroup that holds processes cannot hand
# controllers (memory, pids) down to the jobs' cgroups beside it.
if [ -w "$V2/cgroup.procs" ] && mkdir -p "$V2/worker" 2>/dev/null; then
  for pid in $(cat "$V2/cgroup.procs"); do echo "$pid" > "$V2/worker/cgroup.procs" 2>/dev/null || true; done
fi

exec "$@"
