#!/bin/sh
# PostgreSQL from Debian's packages, started as the official image starts it: a new data directory
# gets POSTGRES_USER (a superuser with POSTGRES_PASSWORD) and POSTGRES_DB. The scale-out test's
# stand-in for pgvector/pgvector:pg16, which cannot be pulled here. Arguments: the port, then the
# compose file's own `-c` settings.
set -eu
port="$1"
shift
bin="$(ls -d /usr/lib/postgresql/*/bin | tail -1)"
data=/var/lib/postgresql/data
mkdir -p "$data" /run/postgresql
chown -R postgres:postgres "$data" /run/postgresql
chmod 700 "$data"
as_postgres() { setpriv --reuid postgres --regid postgres --init-groups "$@"; }
if [ ! -s "$data/PG_VERSION" ]; then
  printf '%s\n' "$POSTGRES_PASSWORD" > /run/postgresql/pw
  chown postgres /run/postgresql/pw
  as_postgres "$bin/initdb" -D "$data" -U "$POSTGRES_USER" --pwfile=/run/postgresql/pw \
    --auth-host=scram-sha-256 --auth-local=trust >/dev/null
  rm /run/postgresql/pw
  echo "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\";" |
    as_postgres "$bin/postgres" --single -D "$data" postgres >/dev/null
fi
exec setpriv --reuid postgres --regid postgres --init-groups \
  "$bin/postgres" -D "$data" -h 127.0.0.1 -p "$port" -k /run/postgresql "$@"
