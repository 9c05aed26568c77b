#!/usr/bin/env bash
# Starts a private PostgreSQL cluster on a free loopback port for the test suite and prints
# `export TEST_DATABASE_URL=...`. Usage: eval "$(scripts/test-services.sh start DIR)"; scripts/test-services.sh stop DIR
set -euo pipefail
action=${1:?start|stop}
dir=${2:?data directory}
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$pg_bin" ] || { echo "PostgreSQL server binaries not found (apt-get install postgresql)" >&2; exit 1; }
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
case "$action" in
  start)
    port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
    rm -rf "$dir"; mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    as_postgres "$pg_bin/initdb" -D "$dir/data" --auth=trust -U postgres >/dev/null
    as_postgres "$pg_bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null
    echo "export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    as_postgres "$pg_bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
    ;;
esac
