import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Serves the built SPA: hashed assets cached for a year, index.html never cached, and history
 * fallback (any GET that is not /api or a file answers index.html, so deep links work).
 */
export const staticSpaPlugin = fp(
  async (app: FastifyInstance, options: { root: string }) => {
    const indexPath = path.join(options.root, 'index.html');
    const hasBuild = fs.existsSync(indexPath);
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
        !request.url.startsWith('/api/') &&
        !request.url.startsWith('/dev/') &&
        !request.url.startsWith('/billing-engine/') &&
        !path.extname(request.url.split('?')[0] ?? '');
      if (isPageRequest && hasBuild) {
        return reply.header('cache-control', 'no-cache').sendFile('index.html');
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
