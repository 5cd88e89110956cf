#!/usr/bin/env bash
# Playwright journeys against the real server on a fresh embedded database, in Debian's Chromium.
# The web app is built into a folder of its own, so a parallel build cannot change it mid-run.
set -euo pipefail
cd "$(dirname "$0")/.."
# The project's own Node 24 (node_modules/.bin/node, docs/decisions/060), also when run by hand.
export PATH="$PWD/node_modules/.bin:$PATH"
bash scripts/ensure-system-deps.sh
web_dist=$(mktemp -d)
trap 'rm -rf "$web_dist"' EXIT
(cd apps/web && npx vite build --outDir "$web_dist" --emptyOutDir --logLevel warn)
export E2E_WEB_DIST_DIR="$web_dist"
cd e2e
reporters="list"
[ -n "${PLAYWRIGHT_JSON_OUTPUT_NAME:-}" ] && reporters="list,json"
npx playwright test --reporter="$reporters" "$@"
