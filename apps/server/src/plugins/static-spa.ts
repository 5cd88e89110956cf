import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { serverOnlyPathPrefixes } from '@farmcam/contract/rules';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

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
