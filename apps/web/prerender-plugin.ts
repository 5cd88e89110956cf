import fs from 'node:fs/promises';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { createServer, type Plugin } from 'vite';
import { preactCompatAliases } from './preact-compat.ts';

/** Where the prerendered landing page goes; the server answers `/` with it (static-spa.ts). */
export const landingFileName = 'landing.html';

const rootElement = '<div id="root"></div>';

/**
 * After the build, renders into copies of the built index.html (src/prerender.tsx, decisions 083,
 * 116 and 118), so something paints before any JavaScript has been fetched or run:
 * - `landing.html`, `/` with the visitor's sign-in page, which main.tsx hydrates. Its form posts
 *   to the server when the app has not started yet (or JavaScript is off), so nothing typed is
 *   lost whatever the script timing;
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
    async writeBundle() {
      const server = await createServer({
        configFile: false,
        root,
        logLevel: 'error',
        plugins: [react()],
        resolve: { alias: preactCompatAliases },
        // The libraries that import React are run through the aliases too; the rest (Preact
        // itself among them) Node loads once, as they are.
        ssr: { noExternal: ['react-router', '@tanstack/react-query'] },
        appType: 'custom',
        server: { middlewareMode: true, hmr: false, ws: false, watch: null },
      });
      let landingMarkup: string;
      let shellMarkup: string;
      try {
        const pages = (await server.ssrLoadModule('/src/prerender.tsx')) as {
          renderLanding: () => Promise<string>;
          renderShell: () => string;
        };
        landingMarkup = await pages.renderLanding();
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
      const index = await fs.readFile(indexPath, 'utf8');
      if (!index.includes(rootElement)) throw new Error(`index.html has no ${rootElement}`);
      await fs.writeFile(
        path.join(outDir, landingFileName),
        index.replace(
          rootElement,
          `<div id="root" data-prerendered="landing">${landingMarkup}</div>`,
        ),
      );
      await fs.writeFile(
        indexPath,
        index.replace(rootElement, `<div id="root">${shellMarkup}</div>`),
      );
    },
  };
}
