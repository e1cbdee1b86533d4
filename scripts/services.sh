#!/usr/bin/env bash
# Starts the local PostgreSQL and Redis that the platform's tests use, if they are installed but stopped.
# Tests that need one of them skip with the reason when it cannot be reached.
set -u
if command -v pg_ctlcluster >/dev/null && ! pg_isready -q -h 127.0.0.1 2>/dev/null; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start 2>/dev/null || true
fi
if command -v redis-server >/dev/null && ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log >/dev/null 2>&1 || true
fi
exit 0
