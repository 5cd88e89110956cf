import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Plugin } from 'vite';

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);
const compressible = /\.(js|css|html|svg|json|txt|webmanifest)$/;

/**
 * Writes `.br` and `.gz` beside every text asset after the build, so the server answers with
 * compressed files (`@fastify/static` `preCompressed`) without compressing on each request.
 */
export function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'farmcam-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      const entries = await fs.readdir(outDir, { recursive: true, withFileTypes: true });
      await Promise.all(
        entries
          .filter((entry) => entry.isFile() && compressible.test(entry.name))
          .map(async (entry) => {
            const file = path.join(entry.parentPath, entry.name);
            const content = await fs.readFile(file);
            if (content.length < 1024) return;
            await fs.writeFile(`${file}.gz`, await gzip(content, { level: 9 }));
            await fs.writeFile(
              `${file}.br`,
              await brotli(content, {
                params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 },
              }),
            );
          }),
      );
    },
  };
}
