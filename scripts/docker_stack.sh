#!/usr/bin/env bash
# The whole stack in containers, checked end to end (docker/compose.local.yaml): builds its images here,
# brings PostgreSQL, Redis, migrations, the web and a CPU worker up, submits a correct vectoradd through the
# API in leaderboard mode, waits for the verdict, finds it in the rankings, and takes it all down (containers,
# volumes; the images stay, as a cache). Exit status 0 when all of that worked.
#
#   bash scripts/docker_stack.sh            (as root where no engine answers: scripts/docker.sh starts one)
set -euo pipefail
cd "$(dirname "$0")/.."

COMPOSE=(docker-compose -p kernelboard-local -f docker/compose.local.yaml)
WEB=http://127.0.0.1:18000
say() { echo "docker_stack.sh: $*"; }
started=$SECONDS

command -v docker-compose >/dev/null || {
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y -qq docker-compose >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq docker-compose >/dev/null 2>&1; }
  else
    say "docker-compose is missing (Debian: apt-get install docker-compose)"; exit 1
  fi
}
bash scripts/docker.sh base
SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_urlsafe(50))')
export SECRET_KEY RUNNER_CASE_BUDGET_S=${RUNNER_CASE_BUDGET_S:-0.1}

WORKER=kernelboard-local-worker-cpu
down() {
  docker rm -f "$WORKER" >/dev/null 2>&1 || true
  "${COMPOSE[@]}" down --volumes --remove-orphans >/dev/null 2>&1 || true
}

# The worker as compose.local.yaml describes it, through `docker run`: Compose 1.29 cannot lift the masked
# /proc paths (systempaths=unconfined), without which bubblewrap cannot mount the sandbox's /proc.
run_worker() {
  local envfile
  envfile=$(mktemp)
  "${COMPOSE[@]}" --profile docker-run config | python3 -c '
import sys, yaml
env = yaml.safe_load(sys.stdin)["services"]["worker-cpu"]["environment"]
print("\n".join(f"{k}={v}" for k, v in env.items()))' > "$envfile"
  docker run -d --name "$WORKER" --network host --env-file "$envfile" --cap-drop ALL \
    --security-opt seccomp=unconfined --security-opt apparmor=unconfined --security-opt systempaths=unconfined \
    kernelboard-worker-cpu:local >/dev/null
  rm -f "$envfile"
}
trap 'status=$?; if [ $status -ne 0 ]; then "${COMPOSE[@]}" logs --tail 40 >&2 || true; docker logs --tail 40 "$WORKER" >&2 || true; fi; down; exit $status' EXIT

say "building the images"
docker build -q --force-rm --network host -f docker/python.Dockerfile -t kernelboard-python:3.11 . >/dev/null
bash scripts/docker.sh wheels "${COMPOSE[@]}" --profile docker-run build -q --force-rm
docker image prune -f >/dev/null  # the layers of the images these replaced
say "images built at $((SECONDS - started)) s; bringing the stack up"
"${COMPOSE[@]}" up -d
run_worker
for _ in $(seq 1 120); do
  curl -fsS -H 'Host: localhost' "$WEB/healthz" >/dev/null 2>&1 && break
  sleep 1
done
curl -fsS -H 'Host: localhost' "$WEB/healthz" >/dev/null
say "the web answers at $((SECONDS - started)) s"

TOKEN=$("${COMPOSE[@]}" exec -T web python manage.py create_api_token alice 2>/dev/null | tr -d '\r\n')
SOURCE=problems/vectoradd/templates/pytorch.py
BODY=$(python3 -c 'import json, sys; print(json.dumps({"problem": "vectoradd", "device": "cpu", "mode": "leaderboard", "source": open(sys.argv[1]).read()}))' "$SOURCE")
ID=$(curl -fsS -H 'Host: localhost' -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d "$BODY" "$WEB/api/submissions" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
say "submitted #$ID"

state=""
for _ in $(seq 1 300); do
  doc=$(curl -fsS -H 'Host: localhost' -H "Authorization: Bearer $TOKEN" "$WEB/api/submissions/$ID")
  state=$(echo "$doc" | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["state"] if d["final"] else "")')
  [ -n "$state" ] && break
  sleep 1
done
[ "$state" = passed ] || { say "submission #$ID ended $state: $doc"; exit 1; }
say "submission #$ID passed at $((SECONDS - started)) s"

curl -fsS -H 'Host: localhost' "$WEB/api/problems/vectoradd/rankings?device=cpu" | python3 -c '
import json, sys
entries = json.load(sys.stdin)["entries"]
assert [e["user"] for e in entries] == ["alice"], entries
print("docker_stack.sh: in the rankings: rank", entries[0]["rank"], entries[0]["user"], entries[0]["score_s"], "s")'
say "all done in $((SECONDS - started)) s; taking the stack down"
