# Sourced by the PostgreSQL benchmarks: a throwaway cluster in $work (set by the caller), on a
# unix socket in $work/sock only, database `bob` for the trusted role `bob`, run as `nobody`
# when the script runs as root (PostgreSQL refuses root). `pg_start` starts it, `pg_stop` stops
# it (call it from the caller's exit trap); `as_owner CMD…` runs CMD as the cluster's owner.
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[[ -x "$pgbin/initdb" ]] || { echo "no PostgreSQL (apt-get install -y postgresql)" >&2; exit 1; }
as_owner() { if [[ $(id -u) == 0 ]]; then runuser -u nobody -- "$@"; else "$@"; fi; }
pg_start() {
  chmod 755 "$work"
  mkdir -p "$work/pg" "$work/sock"
  [[ $(id -u) == 0 ]] && chown nobody "$work/pg" "$work/sock"
  as_owner "$pgbin/initdb" -D "$work/pg" -U bob --auth=trust >/dev/null
  as_owner "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg/log" -w \
    -o "-c listen_addresses='' -k $work/sock -c fsync=on" start >/dev/null
  as_owner "$pgbin/createdb" -h "$work/sock" -U bob bob
}
pg_stop() { as_owner "$pgbin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true; }
