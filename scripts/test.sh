#!/usr/bin/env bash
# The whole test suite: unit, server integration (embedded PGlite) and component tests with
# vitest, then the Playwright journeys in Debian's Chromium. Ends with one summary line.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-system-deps.sh
[ -d node_modules ] || npm ci
# The project's own Node 24 (node_modules/.bin/node, docs/decisions/060), also when run by hand.
export PATH="$PWD/node_modules/.bin:$PATH"

results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
status=0
npx vitest run --reporter=default --reporter=json --outputFile="$results/vitest.json" || status=$?
# WITH_POSTGRES=1 (CI) runs the server suites again on PostgreSQL beside the journeys, which wait
# on browsers more than they use the CPU, one file at a time (PG_WORKERS) so the journeys keep
# their share (docs/decisions/150); its output follows theirs.
pg_pid=""
if [ -n "${WITH_POSTGRES:-}" ]; then
  VITEST_MAX_WORKERS="${PG_WORKERS:-1}" PG_RESULTS="$results/postgres.json" bash scripts/test-postgres.sh >"$results/postgres.log" 2>&1 &
  pg_pid=$!
fi
# Journeys that need processes sharing one database (24-live-view-takeover) run whenever a
# PostgreSQL server answers; only a machine without one skips them.
database_url="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
if pg_isready -d "$database_url" -q 2>/dev/null; then export E2E_DATABASE_URL="$database_url"; fi
PLAYWRIGHT_JSON_OUTPUT_NAME="$results/playwright.json" bash scripts/e2e.sh || status=$?
if [ -n "$pg_pid" ]; then
  pg_status=0
  wait "$pg_pid" || pg_status=$?
  echo "== The server suites on PostgreSQL (scripts/test-postgres.sh) =="
  cat "$results/postgres.log"
  [ "$pg_status" -eq 0 ] || status=$pg_status
fi
node scripts/summarize-tests.mjs "$results/vitest.json" "$results/playwright.json" ${pg_pid:+"$results/postgres.json"}
exit $status
