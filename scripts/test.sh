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
PLAYWRIGHT_JSON_OUTPUT_NAME="$results/playwright.json" bash scripts/e2e.sh || status=$?
node scripts/summarize-tests.mjs "$results/vitest.json" "$results/playwright.json"
exit $status
