#!/usr/bin/env bash
# A throwaway PostgreSQL for the store's tests.
#
#   .ci/postgres.sh start DIR   installs the server if it is missing (Debian package), creates a
#                               cluster in DIR, starts it on a free local port and prints its URL
#   .ci/postgres.sh stop DIR    stops it (DIR can then be removed)
#
# Run as root, the cluster belongs to the unprivileged user `nobody`: PostgreSQL refuses to
# run as root. Authentication is `trust` on 127.0.0.1 only, and durability is off (nothing in
# it outlives the run) unless FILEWRIGHT_PG_DURABLE=1, as the store benchmark sets, keeps
# PostgreSQL's defaults (fsync of the WAL at every commit).
set -euo pipefail
cmd=${1:?start or stop}
dir=${2:?a directory for the cluster}

bindir() {
    local found
    found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -n "$found" ]; then echo "$found"; return; fi
    if command -v initdb >/dev/null; then dirname "$(command -v initdb)"; return; fi
    return 1
}

as_owner() {
    if [ "$(id -u)" = 0 ]; then
        setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups --reset-env -- "$@"
    else
        "$@"
    fi
}

case "$cmd" in
start)
    if ! bin=$(bindir); then
        [ "$(id -u)" = 0 ] || { echo "PostgreSQL is not installed and only root can install it" >&2; exit 1; }
        echo "installing PostgreSQL (Debian package) for the store's tests" >&2
        # The package's own cluster is not wanted: ours lives in DIR.
        mkdir -p /etc/postgresql-common
        echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -q --no-install-recommends postgresql >&2 \
            || { apt-get update -q >&2 && apt-get install -y -q --no-install-recommends postgresql >&2; }
        bin=$(bindir)
    fi
    if ! command -v openssl >/dev/null && [ "$(id -u)" = 0 ]; then
        # For the TLS tests' certificates (the server package brings it; an older install may not).
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends openssl >&2 || true
    fi
    mkdir -p "$dir"
    chmod 755 "$dir"
    [ "$(id -u)" = 0 ] && chown nobody "$dir"
    # A free local port: bash alone, as a fresh machine may have nothing else.
    port=""
    for _ in $(seq 50); do
        candidate=$((20000 + RANDOM % 30000))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then port=$candidate; break; fi
    done
    [ -n "$port" ] || { echo "no free local port found" >&2; exit 1; }
    # The default collation is ICU's English, as on most production servers, so that a query
    # that sorts by the default collation instead of bytewise shows in the tests (PostgreSQL
    # before 15 has no ICU default: plain C then).
    as_owner "$bin/initdb" -D "$dir/data" -U filewright --auth=trust -E UTF8 --no-sync \
        --locale=C.UTF-8 --locale-provider=icu --icu-locale=en >"$dir/initdb.log" 2>&1 \
        || { rm -rf "$dir/data"; as_owner "$bin/initdb" -D "$dir/data" -U filewright --auth=trust -E UTF8 --no-sync \
            >"$dir/initdb.log" 2>&1; } \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    options="-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200"
    # TLS with a throwaway certificate authority (DIR/tls/ca.pem), for the tests of
    # sslmode=require; openssl comes with the server package.
    if command -v openssl >/dev/null; then
        tls="$dir/tls"
        mkdir -p "$tls"
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=filewright test CA" \
            -keyout "$tls/ca.key" -out "$tls/ca.pem" >"$tls/log" 2>&1
        openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
            -keyout "$tls/server.key" -out "$tls/server.csr" >>"$tls/log" 2>&1
        printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$tls/ext"
        openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial \
            -days 2 -extfile "$tls/ext" -out "$tls/server.pem" >>"$tls/log" 2>&1
        chmod 600 "$tls/server.key"
        [ "$(id -u)" = 0 ] && chown nobody "$tls/server.key" "$tls/server.pem"
        options="$options -c ssl=on -c ssl_cert_file=$tls/server.pem -c ssl_key_file=$tls/server.key"
    fi
    if [ "${FILEWRIGHT_PG_DURABLE:-0}" != 1 ]; then
        options="$options -c fsync=off -c synchronous_commit=off"
    fi
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$options" start >&2 \
        || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgres://filewright@127.0.0.1:$port/postgres"
    ;;
stop)
    bin=$(bindir)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2 || true
    ;;
*)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
