#!/usr/bin/env bash
# Smoke test of a built app image (CI runs it after jlink/build.sh): the launcher runs the CLI,
# `status --json` answers, and `serve` + `sync` from the image sync the demo data. No display needed.
# Usage: bash jlink/smoke.sh target/dist/leasesync
set -euo pipefail
image=${1:?usage: smoke.sh APP_IMAGE_DIR}
bin="$image/bin/leasesync"
[ -x "$bin" ] || { echo "smoke.sh: $bin is missing or not executable" >&2; exit 1; }
tmp=$(mktemp -d)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

fail() { echo "smoke.sh: FAILED: $*" >&2; exit 1; }

"$bin" --version | grep -q '^leasesync ' || fail "--version"
# the tray (AWT) and desktop notifications (dbus-java: the uid for the bus login, Unix socket
# credentials) need these modules in the runtime; without them they would be silently unavailable
release="$image/lib/runtime/release"
[ -f "$release" ] || fail "no runtime release file at $release"
for m in java.desktop jdk.net jdk.security.auth; do
  grep -q "^MODULES=.*[\" ]$m[\" ]" "$release" || fail "the runtime lacks module $m (tray or notifications)"
done
echo "smoke: runtime has the tray and notification modules"
"$bin" status --json --data-dir "$tmp/empty" > "$tmp/status.json" || fail "status --json exited $?"
grep -q '^[[{]' "$tmp/status.json" || fail "status --json printed no JSON: $(cat "$tmp/status.json")"
echo "smoke: status --json ok: $(head -c 200 "$tmp/status.json")"

"$bin" serve --port 0 --seed demo --data-dir "$tmp/server" > "$tmp/serve.out" 2> "$tmp/serve.err" &
server_pid=$!
for _ in $(seq 1 300); do
  grep -q '^token admin ' "$tmp/serve.out" 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || fail "serve exited: $(cat "$tmp/serve.err")"
  sleep 0.1
done
url=$(sed -n 's/^listening on //p' "$tmp/serve.out")
token=$(sed -n 's/^token alice //p' "$tmp/serve.out")
[ -n "$url" ] && [ -n "$token" ] || fail "serve printed no address or token: $(cat "$tmp/serve.out")"
echo "smoke: serve ok at $url"

"$bin" sync --server "$url" --token "$token" --user alice --scope course_sync --data-dir "$tmp/client" \
    > "$tmp/sync.out" || fail "sync exited $?: $(cat "$tmp/sync.out")"
grep -q 'synced' "$tmp/sync.out" || fail "sync said: $(cat "$tmp/sync.out")"
"$bin" records --user alice --scope course_sync --data-dir "$tmp/client" > "$tmp/records.out" \
    || fail "records exited $?"
[ "$(wc -l < "$tmp/records.out")" -gt 1 ] || fail "no records after the sync: $(cat "$tmp/records.out")"
echo "smoke: sync ok: $(cat "$tmp/sync.out")"
echo "smoke: app image $image works"
