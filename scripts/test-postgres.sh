#!/usr/bin/env bash
# The server suites again, each test file on its own fresh PostgreSQL database.
set -euo pipefail
cd "$(dirname "$0")/.."
# The project's own Node 24 (node_modules/.bin/node, docs/decisions/060), also when run by hand.
export PATH="$PWD/node_modules/.bin:$PATH"
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
if ! pg_isready -d "$TEST_DATABASE_URL" -q 2>/dev/null; then
  echo "PostgreSQL is not reachable at $TEST_DATABASE_URL; start it (e.g. pg_ctlcluster 15 main start) or set TEST_DATABASE_URL." >&2
  exit 1
fi
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
status=0
npx vitest run --project server --reporter=default --reporter=json --outputFile="$results/vitest.json" || status=$?
node scripts/summarize-tests.mjs "$results/vitest.json"
exit $status
