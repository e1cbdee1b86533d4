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

# The worker as compose.local.yaml describes it, through `docker run`: Compose 1.29 can neither lift the masked
# /proc paths (systempaths=unconfined), without which bubblewrap cannot mount the sandbox's /proc, nor give
# a cgroup namespace of its own. Its environment, capabilities, security options and cgroup namespace are
# read from the resolved configuration, so that what runs is what the file says.
run_worker() {
  local envfile flags
  envfile=$(mktemp)
  flags=$("${COMPOSE[@]}" --profile docker-run config | python3 -c '
import sys, yaml
w = yaml.safe_load(sys.stdin)["services"]["worker-cpu"]
with open(sys.argv[1], "w") as f:
    f.write("\n".join(f"{k}={v}" for k, v in w["environment"].items()))
flags = [f"--cap-drop={c}" for c in w.get("cap_drop", [])] + [f"--cap-add={c}" for c in w.get("cap_add", [])]
flags += [f"--security-opt={o}" for o in w.get("security_opt", [])]
cgroupns = w.get("x-cgroup")
flags += [f"--cgroupns={cgroupns}"] if cgroupns else []
print(" ".join(flags))' "$envfile")
  # shellcheck disable=SC2086  # the flags are words without spaces, made above
  docker run -d --name "$WORKER" --network host --env-file "$envfile" $flags kernelboard-worker-cpu:local >/dev/null
  rm -f "$envfile"
}
# On a failure: every submission's verdict, message and the judge's logs, then the services' last lines.
explain() {
  "${COMPOSE[@]}" exec -T web python manage.py shell -c "
from leaderboard.submissions.models import Submission
for s in Submission.objects.order_by('pk'):
    run = getattr(s, 'run', None)
    print('docker_stack.sh: #%s %s %s %s: %s' % (s.pk, s.mode, s.state, s.confirmation, s.message))
    if run is not None and run.report.get('logs'):
        print(run.report['logs'][-3000:])" >&2 2>/dev/null || true
  "${COMPOSE[@]}" logs --tail 40 >&2 || true
  docker logs --tail 80 "$WORKER" >&2 || true
}
trap 'status=$?; if [ $status -ne 0 ]; then explain; fi; down; exit $status' EXIT

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
# The API refuses a device kind that no worker serves (503 no_worker): wait for the cpu worker's first beat.
served='import json, sys; sys.exit(0 if any(k["name"] == "cpu" and k["served"] for k in json.load(sys.stdin)) else 1)'
for _ in $(seq 1 120); do
  curl -fsS -H 'Host: localhost' "$WEB/api/device-kinds" 2>/dev/null | python3 -c "$served" && break
  sleep 1
done
curl -fsS -H 'Host: localhost' "$WEB/api/device-kinds" | python3 -c "$served"
say "a worker serves cpu at $((SECONDS - started)) s"

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

# How the worker judged it: the report's CPU accounting and isolation (from the database), and its fork
# server, which outlives the job in the worker (tests/containers/test_stack.py checks these lines).
"${COMPOSE[@]}" exec -T web python manage.py shell -c "
from leaderboard.submissions.models import Run
r = Run.objects.get(submission_id=$ID).report
print('docker_stack.sh: judged with cpu_time_from=' + r['env'].get('cpu_time_from', '?'))
print('docker_stack.sh: isolation: ' + r['isolation'])" 2>/dev/null | tr -d '\r'
docker exec "$WORKER" python3 -c '
import os
def cmdline(pid):
    try:
        return open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        return b""
servers = [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid() and b"runner.judge.served" in cmdline(p)]
print("docker_stack.sh: a fork server runs in the worker:", "yes" if servers else "no")'

# A first entry is a leader: the stack judges it again with fresh secret inputs (LEADERS_JUDGED_AGAIN)
# before it ranks, on the slower of its two runs.
say "waiting for the second judging of a leader, then the rank"
for _ in $(seq 1 300); do
  entries=$(curl -fsS -H 'Host: localhost' "$WEB/api/problems/vectoradd/rankings?device=cpu")
  [ "$(printf '%s' "$entries" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))')" = 1 ] && break
  sleep 1
done
printf '%s' "$entries" | python3 -c '
import json, sys
entries = json.load(sys.stdin)["entries"]
assert [e["user"] for e in entries] == ["alice"], entries
print("docker_stack.sh: in the rankings: rank", entries[0]["rank"], entries[0]["user"], entries[0]["score_s"], "s")'
say "all done in $((SECONDS - started)) s; taking the stack down"
