#!/bin/sh
# First start: a cluster with the database and user the platform expects (POSTGRES_DB, POSTGRES_USER,
# POSTGRES_PASSWORD, as the official image reads them); then PostgreSQL in the foreground.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  # UTF8 whatever the image's locale: under the C locale initdb would pick SQL_ASCII, which refuses every
  # non-ASCII character a report, a message or a name may hold.
  initdb -D "$PGDATA" -U postgres -E UTF8 --no-locale --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p $PGPORT" -w start >/dev/null
  psql -p "$PGPORT" -U postgres -v ON_ERROR_STOP=1 -q \
    -c "CREATE USER \"$POSTGRES_USER\" PASSWORD '$POSTGRES_PASSWORD'" \
    -c "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\""
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses=127.0.0.1 -p "$PGPORT"
