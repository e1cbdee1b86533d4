#!/usr/bin/env bash
# The Docker side of the set-up (docs/sandbox.md, "docker"): the engine, the local base image, the runner
# image. No image registry is reachable from these machines, so every image is made here.
#
#   scripts/docker.sh start    start dockerd (no bridge) where no engine answers; as root only
#   scripts/docker.sh stop     stop the dockerd that `start` started (the pid it recorded), nothing else
#   scripts/docker.sh base     kernelboard-base:bookworm from debootstrap, unless it exists
#   scripts/docker.sh image    the CPU runner image, rebuilt only when its code hash changed
#   scripts/docker.sh cuda     the CUDA runner image, for GPU hosts (its base and torch come from registries)
#   scripts/docker.sh setup    all of the above that is missing (what `make test` runs)
#   scripts/docker.sh status   whether an engine answers and whether the image matches the checkout
#   scripts/docker.sh wheels CMD...   run CMD with the loopback index of the torch wheel up (other builds)
#
set -euo pipefail
cd "$(dirname "$0")/.."

STATE=var/docker                      # the pid and log of the dockerd we started (var/ is git-ignored)
BASE_IMAGE=kernelboard-base:bookworm
RUNNER_IMAGE=${RUNNER_IMAGE:-kernelboard-runner:latest}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
PY=.venv/bin/python
WHEEL_PORT=18751                      # the loopback index of the torch wheel, during a build only

say() { echo "docker.sh: $*"; }

engine_answers() { docker info >/dev/null 2>&1; }

# install_missing COMMAND PACKAGE: Debian's package, where the command is missing and we are root.
install_missing() {
  command -v "$1" >/dev/null && return 0
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    say "$1 is missing: install Debian's $2 (apt-get install $2)"
    return 1
  fi
  say "installing $2 from Debian's packages"
  apt-get install -y -qq "$2" >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "$2" >/dev/null 2>&1; }
}

start() {
  if engine_answers; then return 0; fi
  if [ "$(id -u)" != 0 ]; then
    say "no Docker engine answers and we are not root: start one (dockerd --bridge=none --iptables=false --ip-forward=false)"
    return 1
  fi
  install_missing dockerd docker.io
  mkdir -p "$STATE"
  # No bridge: a container only ever gets network none (jobs) or host (image builds). Never add a bridge
  # network: nothing here may send traffic to private address ranges.
  # 9>&-: the daemon outlives this script and must not inherit the set-up lock (it would hold it forever).
  setsid dockerd --bridge=none --iptables=false --ip-forward=false \
    --pidfile "$PWD/$STATE/dockerd.pid" >"$STATE/dockerd.log" 2>&1 < /dev/null 9>&- &
  echo $! > "$STATE/started.pid"
  for _ in $(seq 1 60); do
    if engine_answers; then say "dockerd started (pid $(cat "$STATE/started.pid"))"; return 0; fi
    if ! kill -0 "$(cat "$STATE/started.pid")" 2>/dev/null; then break; fi
    sleep 0.5
  done
  say "dockerd did not come up; its log, $STATE/dockerd.log, ends:"
  tail -n 20 "$STATE/dockerd.log" >&2
  return 1
}

stop() {
  local pid
  pid=$(cat "$STATE/started.pid" 2>/dev/null) || { say "no dockerd was started by this script"; return 0; }
  # Only the process we started, and only while it is still a dockerd (pids are recycled).
  if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ]; then
    kill -TERM "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    say "dockerd (pid $pid) stopped"
  fi
  rm -f "$STATE/started.pid"
}

base() {
  if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then return 0; fi
  install_missing debootstrap debootstrap
  local root
  root=$(mktemp -d /tmp/kb-base-XXXXXX)
  say "making $BASE_IMAGE with debootstrap from $MIRROR (about a minute)"
  debootstrap --variant=minbase bookworm "$root" "$MIRROR" >"$STATE/debootstrap.log" 2>&1 ||
    { tail -n 20 "$STATE/debootstrap.log" >&2; rm -rf "$root"; return 1; }
  # The host's CA certificates, so that apt and pip inside a build reach the registries through whatever
  # proxy this machine's own trust store accepts; the host's apt sources (the same mirrors).
  # (The bundle also goes to /usr/local/share/ca-certificates, so that it survives the image's own
  # update-ca-certificates when the build installs the ca-certificates package.)
  mkdir -p "$root/etc/ssl/certs" "$root/usr/local/share/ca-certificates"
  cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  cp -L /etc/ssl/certs/ca-certificates.crt "$root/usr/local/share/ca-certificates/kernelboard-host.crt"
  printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb http://deb.debian.org/debian-security bookworm-security main\n' \
    "$MIRROR" "$MIRROR" > "$root/etc/apt/sources.list"
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | docker import - "$BASE_IMAGE" >/dev/null
  rm -rf "$root"
  say "$BASE_IMAGE made"
}

hash() { "$PY" -m runner.sandbox.docker hash; }

# The torch CPU wheel lies on this machine's disk (pip's find-links); a loopback index hands it to a build
# (--network host) without copying 190 MB into a layer. A fixed port: the build argument that names it is
# part of the layer cache's key. Up until this script exits.
serve_wheels() {
  mkdir -p "$STATE/wheels"
  local wheel
  wheel=$(torch_wheel)
  [ -e "$STATE/wheels/$(basename "$wheel")" ] || ln -sf "$(realpath "$wheel")" "$STATE/wheels/"
  python3 -m http.server --bind 127.0.0.1 --directory "$STATE/wheels" "$WHEEL_PORT" >"$STATE/wheels.log" 2>&1 9>&- &
  WHEEL_SERVER=$!
  trap 'kill "$WHEEL_SERVER" 2>/dev/null || true' EXIT
  for _ in $(seq 1 50); do
    python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$WHEEL_PORT/', timeout=1)" 2>/dev/null && return 0
    sleep 0.1
  done
  say "the loopback index on 127.0.0.1:$WHEEL_PORT did not come up (is the port taken?)"
  return 1
}

image() {
  local want have
  want=$(hash)
  have=$(docker image inspect -f '{{ index .Config.Labels "kernelboard.code-hash" }}' "$RUNNER_IMAGE" 2>/dev/null || true)
  if [ "$have" = "$want" ]; then return 0; fi
  base
  serve_wheels
  say "building $RUNNER_IMAGE (code hash ${want:0:12}; the image has ${have:0:12})"
  local started=$SECONDS
  docker build --force-rm --network host -f docker/runner.Dockerfile \
    --build-arg BASE_IMAGE="$BASE_IMAGE" --build-arg TORCH_INDEX= \
    --build-arg WHEELS="http://127.0.0.1:$WHEEL_PORT/" \
    --label kernelboard.code-hash="$want" -t "$RUNNER_IMAGE" . >"$STATE/build.log" 2>&1 ||
    { tail -n 30 "$STATE/build.log" >&2; return 1; }
  say "built $RUNNER_IMAGE in $((SECONDS - started)) s"
  # The layers of the image it replaced are of no further use.
  docker image prune -f >/dev/null
}

cuda() {
  local want have
  want=$(hash)
  have=$(docker image inspect -f '{{ index .Config.Labels "kernelboard.code-hash" }}' "$RUNNER_IMAGE" 2>/dev/null || true)
  if [ "$have" = "$want" ]; then return 0; fi
  say "building the CUDA $RUNNER_IMAGE (code hash ${want:0:12})"
  docker build --force-rm -f docker/runner.Dockerfile --label kernelboard.code-hash="$want" -t "$RUNNER_IMAGE" .
}

torch_wheel() {
  local want
  want=$(grep '^torch==' requirements.lock | cut -d= -f3)
  local found
  found=$(ls /opt/wheels/torch-"$want"+cpu-cp311-*.whl "$STATE"/wheels/torch-"$want"+cpu-cp311-*.whl 2>/dev/null | head -n1)
  if [ -z "$found" ]; then
    mkdir -p "$STATE/wheels"
    "$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.11 --platform manylinux_2_28_x86_64 \
      -d "$STATE/wheels" "torch==$want+cpu" >&2
    found=$(ls "$STATE"/wheels/torch-"$want"+cpu-cp311-*.whl | head -n1)
  fi
  echo "$found"
}

status() {
  engine_answers || { echo "no Docker engine answers"; return 1; }
  local want have
  want=$(hash)
  have=$(docker image inspect -f '{{ index .Config.Labels "kernelboard.code-hash" }}' "$RUNNER_IMAGE" 2>/dev/null || echo none)
  echo "engine: $(docker version -f '{{.Server.Version}}'); $RUNNER_IMAGE code hash ${have:0:12}, checkout ${want:0:12}"
}

mkdir -p "$STATE"
# One set-up at a time: test processes running side by side (pytest -n) may each find the image stale.
if [ "${1:-setup}" != hash ] && [ "${1:-setup}" != status ]; then
  exec 9>"$STATE/lock"
  flock -w 1500 9 || { say "another set-up has held $STATE/lock for 25 minutes: $(fuser "$STATE/lock" 2>&1)"; exit 1; }
fi
case "${1:-setup}" in
  start) start ;;
  stop) stop ;;
  base) start && base ;;
  image) start && image ;;
  cuda) start && cuda ;;
  setup) start && image ;;
  hash) hash ;;
  status) status ;;
  wheels) shift; start && serve_wheels && "$@" ;;
  *) echo "usage: $0 start|stop|base|image|cuda|setup|hash|status|wheels CMD..." >&2; exit 2 ;;
esac
