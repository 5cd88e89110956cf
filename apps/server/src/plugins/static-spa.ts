import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { serverOnlyPathPrefixes } from '@farmcam/contract/rules';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * The CSP sources (`'sha256-…'`) of the inline scripts and styles in the built pages: `<script>`
 * and `<style>` tags with no attributes, which apps/web/prerender-plugin.ts writes (the theme
 * before the first paint, a signed-in page's early start, the app's style sheet). Read once at
 * start-up; none without a build.
 */
export function inlineSourceHashes(root: string): { scripts: string[]; styles: string[] } {
  const scripts = new Set<string>();
  const styles = new Set<string>();
  const hashOf = (code: string) => `'sha256-${createHash('sha256').update(code).digest('base64')}'`;
  for (const page of ['index.html', 'landing.html']) {
    const file = path.join(root, page);
    if (!fs.existsSync(file)) continue;
    const html = fs.readFileSync(file, 'utf8');
    for (const [, code] of html.matchAll(/<script>([\s\S]*?)<\/script>/g)) {
      scripts.add(hashOf(code ?? ''));
    }
    for (const [, css] of html.matchAll(/<style>([\s\S]*?)<\/style>/g)) {
      styles.add(hashOf(css ?? ''));
    }
  }
  return { scripts: [...scripts], styles: [...styles] };
}

/**
 * Serves the built SPA: hashed assets cached for a year, everything else (index.html, the service
 * worker, the manifest) `no-cache`, and history fallback (any GET outside the paths the server
 * answers itself, serverOnlyPathPrefixes, that is not a file answers index.html, the app shell,
 * so deep links work). `/` answers landing.html, index.html with the visitor's sign-in page
 * prerendered into it, when the build made one (apps/web/prerender-plugin.ts, decisions 083, 116).
 */
export const staticSpaPlugin = fp(
  async (app: FastifyInstance, options: { root: string }) => {
    const indexPath = path.join(options.root, 'index.html');
    const hasBuild = fs.existsSync(indexPath);
    const hasLanding = fs.existsSync(path.join(options.root, 'landing.html'));
    if (hasBuild) {
      await app.register(fastifyStatic, {
        root: options.root,
        wildcard: false,
        preCompressed: true,
        index: false,
        setHeaders: (response, filePath) => {
          response.header(
            'cache-control',
            filePath.includes(`${path.sep}assets${path.sep}`)
              ? 'public, max-age=31536000, immutable'
              : 'no-cache',
          );
        },
      });
    }

    app.setNotFoundHandler(async (request, reply) => {
      const isPageRequest =
        request.method === 'GET' &&
        !serverOnlyPathPrefixes.some((prefix) => request.url.startsWith(prefix)) &&
        !path.extname(request.url.split('?')[0] ?? '');
      if (isPageRequest && hasBuild) {
        const isLanding = hasLanding && request.url.split('?')[0] === '/';
        return reply
          .header('cache-control', 'no-cache')
          .sendFile(isLanding ? 'landing.html' : 'index.html');
      }
      if (isPageRequest) {
        return reply
          .code(503)
          .type('text/plain')
          .send('The web app is not built. Run `npm start` (it builds apps/web first).');
      }
      return reply
        .code(404)
        .send({ code: 'NOT_FOUND', message: `No route for ${request.method} ${request.url}` });
    });
  },
  { name: 'static-spa' },
);
