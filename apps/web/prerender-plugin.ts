import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { createServer, type Plugin } from 'vite';

/** Where the prerendered landing page goes; the server answers `/` with it (static-spa.ts). */
export const landingFileName = 'landing.html';

const rootElement = '<div id="root"></div>';
const appStartTemplateId = 'app-start';

/**
 * Starts the app on the prerendered landing page once the browser has painted it: the module
 * script and preloads index.html would have started at once wait in a <template> and are added
 * to the head after the first frame. Until the app has rendered, a submit of the prerendered form
 * is held (it would otherwise reload the page with the address in the URL); the app's first
 * render takes the hold over through `window.farmcamTakeHeldSubmit` and sends a held submit
 * itself (main.tsx), so a click while the app starts is not lost.
 */
const bootScript = `(() => {
  let held = false;
  const holdSubmit = (event) => {
    event.preventDefault();
    held = true;
  };
  document.addEventListener('submit', holdSubmit, true);
  window.farmcamTakeHeldSubmit = () => {
    document.removeEventListener('submit', holdSubmit, true);
    return held;
  };
  requestAnimationFrame(() => setTimeout(() => {
    const template = document.getElementById('${appStartTemplateId}');
    if (!template) return;
    for (const original of Array.from(template.content.children)) {
      const element = document.createElement(original.localName);
      for (const { name, value } of Array.from(original.attributes)) element.setAttribute(name, value);
      document.head.append(element);
    }
  }, 0));
})();
`;

/**
 * After the build, renders `/` for a visitor (src/prerender-landing.tsx) into a copy of
 * index.html, `landing.html`, so the sign-in page paints before any JavaScript has been fetched
 * or run (docs/decisions/083): its module script and preloads start after the first frame
 * (bootScript). Every other path keeps index.html, which starts the app at once: a prerendered
 * sign-in form must never show on /dashboard. The render runs in a short-lived Vite server in
 * SSR mode with React itself (the Preact aliases are the browser's), which yields the same markup.
 */
export function prerenderLanding(): Plugin {
  let root = process.cwd();
  let outDir = 'dist';
  return {
    name: 'farmcam-prerender-landing',
    apply: 'build',
    configResolved(config) {
      root = config.root;
      outDir = path.resolve(config.root, config.build.outDir);
    },
    // writeBundle runs in order before any closeBundle, so the precompression sees landing.html.
    async writeBundle() {
      const server = await createServer({
        configFile: false,
        root,
        logLevel: 'error',
        plugins: [react()],
        appType: 'custom',
        server: { middlewareMode: true, hmr: false, watch: null },
      });
      let markup: string;
      try {
        const { renderLanding } = (await server.ssrLoadModule('/src/prerender-landing.tsx')) as {
          renderLanding: () => Promise<string>;
        };
        markup = await renderLanding();
      } finally {
        await server.close();
      }
      // The page a visitor sees first: fail the build rather than ship an empty one.
      if (!markup.includes('<main') || !markup.includes('<form')) {
        throw new Error(`The prerendered landing page has no sign-in form:\n${markup}`);
      }
      const index = await fs.readFile(path.join(outDir, 'index.html'), 'utf8');
      if (!index.includes(rootElement)) throw new Error(`index.html has no ${rootElement}`);
      const appStartTags: string[] = [];
      const withoutAppStart = index.replace(
        /[ \t]*<(script type="module"[^>]*><\/script|link rel="modulepreload"[^>]*)>\n?/g,
        (tag) => {
          appStartTags.push(tag.trim());
          return '';
        },
      );
      if (appStartTags.length === 0) throw new Error('index.html has no module script');
      const bootFile = `assets/landing-boot-${createHash('sha256').update(bootScript).digest('hex').slice(0, 8)}.js`;
      await fs.writeFile(path.join(outDir, bootFile), bootScript);
      const landing = withoutAppStart
        .replace('</head>', `  <script defer src="/${bootFile}"></script>\n  </head>`)
        .replace(
          rootElement,
          `<div id="root">${markup}</div>\n    <template id="${appStartTemplateId}">${appStartTags.join('')}</template>`,
        );
      await fs.writeFile(path.join(outDir, landingFileName), landing);
    },
  };
}
