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
# Journeys that need processes sharing one database (24-live-view-takeover) run whenever a
# PostgreSQL server answers; only a machine without one skips them.
database_url="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
if pg_isready -d "$database_url" -q 2>/dev/null; then export E2E_DATABASE_URL="$database_url"; fi
PLAYWRIGHT_JSON_OUTPUT_NAME="$results/playwright.json" bash scripts/e2e.sh || status=$?
# WITH_POSTGRES=1 (CI) runs the server suites again on PostgreSQL after the journeys, on both
# cores. Beside the journeys (one file at a time) it shared two cores with two browsers and two
# servers: the journeys ran out of time and the pass itself took most of an hour (decision 150).
pg_ran=""
if [ -n "${WITH_POSTGRES:-}" ]; then
  echo "== The server suites on PostgreSQL (scripts/test-postgres.sh) =="
  PG_RESULTS="$results/postgres.json" bash scripts/test-postgres.sh || status=$?
  pg_ran=1
fi
node scripts/summarize-tests.mjs "$results/vitest.json" "$results/playwright.json" ${pg_ran:+"$results/postgres.json"}
exit $status
