import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { createServer, type Plugin, type Rolldown } from 'vite';
import { preactCompatAliases } from './preact-compat.ts';
import { earlyStarts, earlyStartScript } from './src/app/early-start.ts';
import { manifestPath } from './src/lib/manifest-path.ts';
import { tokenStorageKey } from './src/lib/token-storage-key.ts';

/** Where the prerendered landing page goes; the server answers `/` with it (static-spa.ts). */
export const landingFileName = 'landing.html';

const rootElement = '<div id="root"></div>';
const faviconLinkTag = '<link rel="icon" type="image/svg+xml" href="/logo.svg" />';
/** As vite-plugin-pwa writes it; the app links the manifest after its first screen (install.ts). */
const manifestLinkTag = `<link rel="manifest" href="${manifestPath}">`;
const themeScriptTag = '<script src="/theme-init.js"></script>';

/**
 * The page with its one linked style sheet (the entry's, as Vite writes it) written into a
 * `<style>` element, allowed by its hash like the inline scripts.
 */
async function withInlineStyleSheet(page: string, outDir: string): Promise<string> {
  const links = [
    ...page.matchAll(/<link rel="stylesheet" crossorigin href="\/(assets\/[^"]+\.css)">/g),
  ];
  if (links.length !== 1) throw new Error(`index.html links ${links.length} style sheets, not 1`);
  const [tag, file] = links[0] as unknown as [string, string];
  const css = (await fs.readFile(path.join(outDir, file), 'utf8')).trim();
  if (/<\/style/i.test(css)) throw new Error(`${file} contains </style`);
  return page.replace(tag, `<style>${css}</style>`);
}

/** A small hand-written script without its comment lines and blocks, to inline it. */
function withoutComments(code: string): string {
  return code
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .filter((line) => !/^\s*\/\//.test(line) && line.trim() !== '')
    .join('\n');
}

/**
 * A script written into the page itself. The server's Content-Security-Policy allows exactly the
 * inline scripts and styles of the built pages, by their hashes (apps/server/src/plugins/
 * static-spa.ts); the tags have no attributes, which is how the server finds them.
 */
function inlineScript(code: string): string {
  if (/<\/script/i.test(code)) throw new Error('An inline script may not contain </script');
  return `<script>${code.trim()}</script>`;
}

/**
 * On `/` the app's scripts start after the first frame (decision 083): named in the head, their
 * download and evaluation count towards the first paint in Lighthouse's model (FCP 1.6 s with
 * them, 0.95 s without, on `/`). This classic deferred script adds the module script and its
 * preloads once the prerendered page has painted. Nothing else: a submit before the app runs is
 * the form's own post to the server.
 */
function startScript(entry: string, preloads: string[]): string {
  return `requestAnimationFrame(() => setTimeout(() => {
  for (const href of ${JSON.stringify(preloads)}) {
    const link = document.createElement('link');
    link.rel = 'modulepreload';
    link.href = href;
    document.head.append(link);
  }
  const script = document.createElement('script');
  script.type = 'module';
  script.src = ${JSON.stringify(entry)};
  document.head.append(script);
}, 0));
`;
}

/** index.html's entry chunk and the chunks it imports, which the built index.html names. */
function appStartFiles(
  bundle: Rolldown.OutputBundle,
  indexSource: string,
): { entry: string; preloads: string[] } {
  const entry = Object.values(bundle).find(
    (file): file is Rolldown.OutputChunk =>
      file.type === 'chunk' && file.isEntry && file.facadeModuleId === indexSource,
  );
  if (!entry) throw new Error(`The build has no entry chunk for ${indexSource}`);
  return { entry: `/${entry.fileName}`, preloads: entry.imports.map((file) => `/${file}`) };
}

/**
 * index.html as built, less the lines that name the app's scripts (Vite writes one tag a line):
 * exactly the entry's module script and one modulepreload per import, or the build fails.
 */
function withoutAppStart(index: string, { entry, preloads }: ReturnType<typeof appStartFiles>) {
  const named = new Set([entry, ...preloads].map((file) => `"${file}"`));
  const lines = index.split('\n');
  const kept = lines.filter((line) => {
    const tag = line.trim();
    const isAppStart =
      (tag.startsWith('<script type="module"') || tag.startsWith('<link rel="modulepreload"')) &&
      [...named].some((file) => tag.includes(file));
    return !isAppStart;
  });
  if (lines.length - kept.length !== named.size) {
    throw new Error(`index.html does not name the app's ${named.size} scripts one a line`);
  }
  return kept.join('\n');
}

/**
 * Each early-started page's chunk with everything it imports that the entry does not already
 * bring, and their style sheets: what the page's first render waits for (app/early-start.ts).
 */
function pageFiles(
  bundle: Rolldown.OutputBundle,
  pageSource: string,
  entryFiles: Set<string>,
): string[] {
  const chunks = new Map<string, Rolldown.OutputChunk>();
  for (const file of Object.values(bundle)) {
    if (file.type === 'chunk') chunks.set(file.fileName, file);
  }
  const page = [...chunks.values()].find((chunk) => chunk.facadeModuleId === pageSource);
  if (!page) throw new Error(`The build has no chunk for ${pageSource} (app/early-start.ts)`);
  const files: string[] = [];
  const visit = (chunk: Rolldown.OutputChunk) => {
    if (entryFiles.has(chunk.fileName) || files.includes(`/${chunk.fileName}`)) return;
    files.push(`/${chunk.fileName}`);
    for (const css of chunk.viteMetadata?.importedCss ?? []) files.push(`/${css}`);
    for (const imported of chunk.imports) {
      const next = chunks.get(imported);
      if (next) visit(next);
    }
  };
  visit(page);
  return files;
}

/**
 * After the build, renders into copies of the built index.html (src/prerender.tsx, decisions 083,
 * 116 and 118), so something paints before any JavaScript has been fetched or run:
 * - `landing.html`, `/` with the visitor's sign-in page, which main.tsx hydrates. Its form posts
 *   to the server when the app has not started yet (or JavaScript is off), so nothing typed is
 *   lost whatever the script timing; the app's scripts start after its first frame (startScript);
 * - `index.html` itself, every other path: the app shell (the frame and a loading line), which
 *   main.tsx replaces. A prerendered sign-in form never shows on /dashboard.
 * The render runs in a short-lived Vite server in SSR mode, with the same Preact aliases as the
 * browser's build, also for the libraries that import React (`ssr.noExternal`).
 */
export function prerenderPages(): Plugin {
  let root = process.cwd();
  let outDir = 'dist';
  return {
    name: 'farmcam-prerender-pages',
    apply: 'build',
    configResolved(config) {
      root = config.root;
      outDir = path.resolve(config.root, config.build.outDir);
    },
    // writeBundle runs in order before any closeBundle, so the precompression sees both pages.
    async writeBundle(_options, bundle) {
      const server = await createServer({
        configFile: false,
        root,
        logLevel: 'error',
        plugins: [react()],
        resolve: { alias: preactCompatAliases },
        // The libraries that import React are run through the aliases too; the rest (Preact
        // itself among them) Node loads once, as they are.
        ssr: { noExternal: ['@tanstack/react-query'] },
        appType: 'custom',
        server: { middlewareMode: true, hmr: false, ws: false, watch: null },
      });
      let landingMarkup: string;
      let shellMarkup: string;
      try {
        const pages = (await server.ssrLoadModule('/src/prerender.tsx')) as {
          renderLanding: () => string;
          renderShell: () => string;
        };
        landingMarkup = pages.renderLanding();
        shellMarkup = pages.renderShell();
      } finally {
        await server.close();
      }
      // The pages a visitor sees first: fail the build rather than ship an empty one.
      if (!landingMarkup.includes('<main') || !landingMarkup.includes('<form')) {
        throw new Error(`The prerendered landing page has no sign-in form:\n${landingMarkup}`);
      }
      if (!shellMarkup.includes('<main') || shellMarkup.includes('<form')) {
        throw new Error(`The prerendered app shell is not the frame alone:\n${shellMarkup}`);
      }
      const indexPath = path.join(outDir, 'index.html');
      const built = await fs.readFile(indexPath, 'utf8');
      if (!built.includes(rootElement)) throw new Error(`index.html has no ${rootElement}`);
      if (!built.includes(themeScriptTag)) throw new Error(`index.html has no ${themeScriptTag}`);
      // The theme is set before the first paint by a script in the head: inline, so the paint
      // waits for no request (on one bar a 1 KB file took over a second beside the others).
      const themeScript = withoutComments(
        await fs.readFile(path.join(root, 'public', 'theme-init.js'), 'utf8'),
      );
      // The app's own style sheet too (about 3.5 KB compressed): the frame paints as soon as the
      // page has arrived, instead of after a second request shared with everything else.
      // The manifest is linked by the app once the first screen is painted (lib/install.ts):
      // in the head, the browser fetched it and its 7.5 KB icon beside the page's first files.
      if (!built.includes(manifestLinkTag)) throw new Error(`index.html has no ${manifestLinkTag}`);
      if (!built.includes(faviconLinkTag)) throw new Error(`index.html has no ${faviconLinkTag}`);
      // The favicon in the page too: the browser asked for it as the page loaded, one more
      // request on one bar (public/logo.svg stays the file, for the app's larger logos).
      const logo = (await fs.readFile(path.join(root, 'public', 'logo.svg'), 'utf8'))
        .replace(/\n\s*/g, '')
        .trim();
      const index = await withInlineStyleSheet(
        built
          .replace(themeScriptTag, inlineScript(themeScript))
          .replace(
            faviconLinkTag,
            `<link rel="icon" type="image/svg+xml" href="data:image/svg+xml,${encodeURIComponent(logo)}" />`,
          )
          .replace(new RegExp(`\\s*${manifestLinkTag}`), ''),
        outDir,
      );
      const appStart = appStartFiles(bundle, path.join(root, 'index.html'));
      const start = startScript(appStart.entry, appStart.preloads);
      const startHash = createHash('sha256').update(start).digest('hex').slice(0, 8);
      const startFile = `assets/landing-start-${startHash}.js`;
      await fs.writeFile(path.join(outDir, startFile), start);
      const landing = withoutAppStart(index, appStart)
        .replace('</head>', `  <script defer src="/${startFile}"></script>\n  </head>`)
        .replace(rootElement, `<div id="root" data-prerendered="landing">${landingMarkup}</div>`);
      await fs.writeFile(path.join(outDir, landingFileName), landing);
      // Every other path: a signed-in page opened by its address starts its chunk and first
      // answers before the entry has arrived (app/early-start.ts, decision 118).
      const entryFiles = new Set(
        [appStart.entry, ...appStart.preloads].map((file) => file.replace(/^\//, '')),
      );
      const early = earlyStartScript(
        earlyStarts.map((start) => ({
          path: start.path,
          preload: pageFiles(bundle, path.join(root, start.page), entryFiles),
          answers: start.answers,
        })),
        tokenStorageKey,
      );
      // Inline, right after the theme and before the app's own tags, so its requests go out
      // as the head is read: as a file of its own it arrived a second and a half later, behind
      // the entry it was meant to overtake.
      await fs.writeFile(
        indexPath,
        index
          .replace(
            inlineScript(themeScript),
            `${inlineScript(themeScript)}\n    ${inlineScript(early)}`,
          )
          .replace(rootElement, `<div id="root">${shellMarkup}</div>`),
      );
    },
  };
}
