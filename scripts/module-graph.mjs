#!/usr/bin/env node
/**
 * The server's module graph (docs/decisions/160): one node per folder under
 * apps/server/src/modules, one arrow per pair of folders whose files import each other, as a
 * Mermaid flowchart; run-time imports drawn solid, imports of types only dotted (they vanish when
 * the code runs). Below it, the loops among run-time arrows, if any. Measured by
 * dependency-cruiser with the rules' own options (.dependency-cruiser.mjs); tests left out.
 *
 *     node scripts/module-graph.mjs
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const modules = 'apps/server/src/modules/';
const cruise = JSON.parse(
  execFileSync(
    process.execPath,
    [
      path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs'),
      modules,
      '--config',
      '.dependency-cruiser.mjs',
      '--output-type',
      'json',
    ],
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  ),
);

const moduleOf = (file) =>
  file.startsWith(modules) ? file.slice(modules.length).split('/')[0] : null;
/** `from → to`: how many imports of each kind. */
const edges = new Map();
const names = new Set();
for (const file of cruise.modules) {
  const from = moduleOf(file.source);
  if (!from) continue;
  names.add(from);
  for (const dependency of file.dependencies) {
    const to = moduleOf(dependency.resolved);
    if (!to || to === from) continue;
    const key = `${from} ${to}`;
    const counts = edges.get(key) ?? { runtime: 0, typeOnly: 0 };
    if (dependency.dependencyTypes.includes('type-only')) counts.typeOnly += 1;
    else counts.runtime += 1;
    edges.set(key, counts);
  }
}

const id = (name) => name.replaceAll('-', '_');
const lines = ['flowchart BT'];
for (const name of [...names].sort()) lines.push(`  ${id(name)}[${name}]`);
for (const [key, counts] of [...edges].sort()) {
  const [from, to] = key.split(' ');
  lines.push(
    counts.runtime > 0
      ? `  ${id(from)} -->|${counts.runtime}| ${id(to)}`
      : `  ${id(from)} -.->|${counts.typeOnly} type| ${id(to)}`,
  );
}

// Loops: the strongly connected groups of the run-time arrows (Tarjan).
const next = new Map();
for (const [key, counts] of edges) {
  const [from, to] = key.split(' ');
  if (counts.runtime > 0) next.set(from, [...(next.get(from) ?? []), to]);
}
const index = new Map();
const low = new Map();
const stack = [];
const loops = [];
const visit = (name) => {
  index.set(name, index.size);
  low.set(name, index.get(name));
  stack.push(name);
  for (const to of next.get(name) ?? []) {
    if (!index.has(to)) {
      visit(to);
      low.set(name, Math.min(low.get(name), low.get(to)));
    } else if (stack.includes(to)) low.set(name, Math.min(low.get(name), index.get(to)));
  }
  if (low.get(name) !== index.get(name)) return;
  const group = stack.splice(stack.indexOf(name));
  if (group.length > 1) loops.push(group.sort());
};
for (const name of [...names].sort()) if (!index.has(name)) visit(name);

const runtimeCount = [...edges.values()].filter((counts) => counts.runtime > 0).length;
console.log('```mermaid');
console.log(lines.join('\n'));
console.log('```');
console.log(
  `${names.size} modules, ${runtimeCount} run-time arrows, ${edges.size - runtimeCount} type-only arrows.`,
);
console.log(
  loops.length === 0
    ? 'No loops: the modules form a tree.'
    : `Loops (modules that reach each other at run time): ${loops.map((group) => group.join(' ↔ ')).join('; ')}.`,
);
