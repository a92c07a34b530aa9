#!/bin/sh
# Starts a throw-away PostgreSQL server for basalt-privacy's storage tests and
# benchmarks, on 127.0.0.1, from Debian's packages. Idempotent and fast: a
# second run finds the server up and only prints the URL again.
#
#   eval "$(ptm/storage/testdata/start-postgres.sh)"   # sets BASALT_TEST_POSTGRES_URL
#   go test ./ptm/...
#   ptm/storage/testdata/start-postgres.sh stop        # stops it
#
# Settings (environment): BASALT_TEST_POSTGRES_PORT (default 55432),
# BASALT_TEST_POSTGRES_DIR (default /tmp/basalt-test-postgres). The server
# trusts local connections (user postgres, no password): it is for tests only
# and listens on 127.0.0.1 only. Run as root (it installs the "postgresql"
# package if missing and runs the server as the "postgres" user) or as an
# unprivileged user that has PostgreSQL's binaries installed.
set -eu

port=${BASALT_TEST_POSTGRES_PORT:-55432}
dir=${BASALT_TEST_POSTGRES_DIR:-/tmp/basalt-test-postgres}
url="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"

log() { echo "start-postgres: $*" >&2; }

find_bin() {
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

bin=$(find_bin || true)
if [ -z "$bin" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		log "PostgreSQL is not installed; run as root or: apt-get install -y postgresql"
		exit 1
	fi
	log "installing postgresql from Debian's packages"
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2
	bin=$(find_bin)
fi

# As root, run the server as "postgres" (initdb refuses root).
if [ "$(id -u)" -eq 0 ]; then
	as_pg() { runuser -u postgres -- "$@"; }
else
	as_pg() { "$@"; }
fi

if [ "${1:-}" = stop ]; then
	if [ -f "$dir/PG_VERSION" ] && as_pg "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
		as_pg "$bin/pg_ctl" -D "$dir" -m fast -w stop >&2
	fi
	exit 0
fi

if [ ! -f "$dir/PG_VERSION" ]; then
	mkdir -p "$dir"
	[ "$(id -u)" -eq 0 ] && chown postgres: "$dir"
	chmod 700 "$dir"
	log "initdb $dir"
	as_pg "$bin/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 --no-instructions >/dev/null
fi

if ! as_pg "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
	log "starting PostgreSQL on 127.0.0.1:$port"
	as_pg "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 30 \
		-o "-p $port -c listen_addresses=127.0.0.1 -k $dir -c max_connections=200" start >&2 || {
		log "start failed; server log:"
		tail -n 20 "$dir/server.log" >&2 || true
		exit 1
	}
fi

# Wait until it accepts connections (pg_ctl -w already does; be sure).
i=0
until as_pg "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; do
	i=$((i + 1))
	if [ "$i" -gt 50 ]; then
		log "PostgreSQL does not answer on 127.0.0.1:$port"
		exit 1
	fi
	sleep 0.1
done

echo "export BASALT_TEST_POSTGRES_URL='$url'"
