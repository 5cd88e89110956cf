#!/usr/bin/env bash
# The server suites that use a database again, each test file on its own fresh PostgreSQL
# database (docs/decisions/150): files that never open one (rules, parsers, providers' HTTP) ran
# in `npm test` already and would only repeat themselves here. Arguments narrow it further.
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
# The fuzzer's hostile input met every route in `npm test`; here it checks the SQL side with
# fewer cases per route (FUZZ_RUNS overrides).
export FUZZ_RUNS="${FUZZ_RUNS:-200}"
# Four files at a time on two cores: the longest files start processes and wait on real time
# (an outage, a takeover, a crashed recorder), and with two workers the cores idled through them
# (346 s with two, 229 s with four, 208 s with six on the quiet machine; decision 150).
export VITEST_MAX_WORKERS="${VITEST_MAX_WORKERS:-4}"
if [ $# -gt 0 ]; then files=("$@"); else mapfile -t files < <(node scripts/database-test-files.mjs); fi
report="${PG_RESULTS:-$results/vitest.json}"
npx vitest run --project server --project billing-engine "${files[@]}" --reporter=default --reporter=json --outputFile="$report" || status=$?
node scripts/summarize-tests.mjs "$report"
exit $status
