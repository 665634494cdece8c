#!/usr/bin/env bash
# A production install from a fresh clone of this repository's HEAD, in a temporary directory:
# npm ci && npm run build && npm prune --omit=dev && npm start must serve, and npm run admin must work,
# with no development dependency left. Usage: bash scripts/check-production-start.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
server=""
cleanup() {
  if [ -n "$server" ]; then kill -TERM -- "-$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

git clone -q "$root" "$work/app"
cd "$work/app"
npm ci --no-audit --no-fund --loglevel=error
npm run build
npm prune --omit=dev --no-audit --no-fund --loglevel=error
for tool in vite tsx esbuild vitest typescript; do
  if [ -e "node_modules/$tool" ]; then echo "development dependency $tool is still installed"; exit 1; fi
done

port=$((20000 + RANDOM % 20000))
export PORT="$port" DATA_DIR="$work/data" NODE_ENV=production
# In its own process group, stopped the way a terminal or process manager stops it: SIGTERM to the group.
setsid npm start >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 60); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/api/auth/whoami")" = 401 ] && break
  sleep 0.5
done
fail() { echo "$1"; cat "$work/server.log"; exit 1; }
[ "$(curl -s "http://127.0.0.1:$port/healthz")" = '{"status":"ok"}' ] || fail "healthz did not answer"
[ "$(curl -s "http://127.0.0.1:$port/readyz")" = '{"status":"ready"}' ] || fail "readyz did not answer"
curl -s -D - -o /dev/null -H 'accept-encoding: br' "http://127.0.0.1:$port/" | grep -qi '^content-encoding: br' ||
  fail "/ was not served compressed"
grep -q "Sources changed\|No build yet" "$work/server.log" && fail "npm start rebuilt a fresh build"
kill -TERM -- "-$server"
wait "$server" || true
server=""
# npm may exit before the server it started has logged the signal and finished closing: give it up to 10 s.
for _ in $(seq 1 20); do grep -q "SIGTERM received" "$work/server.log" && break; sleep 0.5; done
grep -q "SIGTERM received" "$work/server.log" || fail "the server did not receive SIGTERM"
for _ in $(seq 1 20); do [ -e "$DATA_DIR/db.lock" ] || break; sleep 0.5; done
[ ! -e "$DATA_DIR/db.lock" ] || fail "the server did not close its database on SIGTERM"

printf 'Launch-Day-2026!\n' | npm run --silent admin -- create --email ops@example.com | grep -q "Admin ops@example.com created" ||
  fail "npm run admin did not create the admin"
npm run --silent admin -- backup --out "$work/backup.tar.gz" | grep -q "Backed up" || fail "backup failed"
echo "production start after npm prune --omit=dev: ok"
