/**
 * Compiles the server for `npm run start:prod` (docs/decisions/061-production-mode.md): one ESM
 * file, dist/server.js, that plain `node` runs, dist/staff.js, the staff-accounts command
 * (docs/decisions/062), and dist/backup.js and dist/restore.js (docs/decisions/074). The
 * workspace packages (@farmcam/*: the contract, the database model, the billing port and rules,
 * the local billing engine; TypeScript source) are bundled in; every other package stays in
 * node_modules.
 *
 * Files the server reads from disk at run time (migrations, the camera script and its element
 * list, embed assets, the coverage dataset) are found through `import.meta.url`. Each module's
 * `import.meta.url` is rewritten to its own place in a mirror of src/ under dist/, and every
 * file of src/ that is not TypeScript is copied into that mirror, so the same relative paths
 * resolve from dist/ (config.ts's `../../../web/dist` included).
 */
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const serverRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sourceRoot = path.join(serverRoot, 'src');
// Another folder for the build's own test; it must sit inside the repository so the external
// packages resolve from node_modules.
const outputRoot = path.resolve(process.argv[2] ?? path.join(serverRoot, 'dist'));

/** Bundles @farmcam/* workspace packages; leaves other packages and node: built-ins external. */
const externalPackages = {
  name: 'external-packages',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@farmcam/') ? undefined : { path: args.path, external: true },
    );
  },
};

/** Points each server module's `import.meta.url` at its mirror under dist/ (see above). */
const importMetaUrlPerModule = {
  name: 'import-meta-url-per-module',
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await fs.promises.readFile(args.path, 'utf8');
      if (!args.path.startsWith(sourceRoot + path.sep) || !source.includes('import.meta.url')) {
        return undefined;
      }
      const fromDist = path.relative(sourceRoot, args.path).split(path.sep).join('/');
      const contents = source.replaceAll(
        'import.meta.url',
        `new URL(${JSON.stringify(`./${fromDist}`)}, import.meta.url).href`,
      );
      return { contents, loader: 'ts', resolveDir: path.dirname(args.path) };
    });
  },
};

function copyRuntimeFiles(from, to) {
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      copyRuntimeFiles(source, target);
    } else if (!/\.tsx?$/.test(entry.name)) {
      fs.mkdirSync(to, { recursive: true });
      fs.copyFileSync(source, target);
    }
  }
}

fs.rmSync(outputRoot, { recursive: true, force: true });
await build({
  // Every program sits at the top of src/, so the import.meta.url mirror holds for each.
  entryPoints: ['server.ts', 'staff.ts', 'backup.ts', 'restore.ts'].map((entry) =>
    path.join(sourceRoot, entry),
  ),
  outdir: outputRoot,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [externalPackages, importMetaUrlPerModule],
});
copyRuntimeFiles(sourceRoot, outputRoot);
process.stdout.write(`Built ${path.relative(process.cwd(), path.join(outputRoot, 'server.js'))}\n`);
