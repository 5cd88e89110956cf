#!/usr/bin/env node
/**
 * The server test files that use a database, and the local billing engine's (which borrow the
 * server's test context, decision 171): `npm run test:pg` runs only these on PostgreSQL
 * (docs/decisions/150). A file counts when it, or a test helper it imports (test/helpers,
 * followed through their own imports), opens a database or starts the server against one.
 * Prints one path per line, relative to the repository.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const server = path.join(root, 'apps/server');
const marker =
  /\b(openTestDatabase|openDatabase|TEST_DATABASE_URL|DATABASE_URL|createTestContext)\b/;

function testFiles(folder) {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

const helpers = path.join(server, 'test');
const usesDatabase = new Map();
/** Whether `file` or a test helper it imports (transitively) touches a database. */
function touchesDatabase(file, seen = new Set()) {
  if (usesDatabase.has(file)) return usesDatabase.get(file);
  if (seen.has(file)) return false;
  seen.add(file);
  const text = fs.readFileSync(file, 'utf8');
  let result = marker.test(text);
  for (const [, specifier] of text.matchAll(/from '(\.[^']+)'/g)) {
    if (result) break;
    const target = path.resolve(path.dirname(file), specifier);
    if (target.startsWith(helpers) && fs.existsSync(target)) {
      result = touchesDatabase(target, seen);
    }
  }
  usesDatabase.set(file, result);
  return result;
}

const files = [
  ...testFiles(path.join(server, 'src')),
  ...testFiles(helpers),
  ...testFiles(path.join(root, 'packages/billing-engine/src')),
].sort();
for (const file of files) if (touchesDatabase(file)) console.log(path.relative(root, file));
