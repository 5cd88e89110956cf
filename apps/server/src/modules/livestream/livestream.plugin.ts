/**
 * The HTTP side of livestreaming outside /api's customer routes: the public livestream-url and
 * embed page, and (with filesystem storage) the signed /media/clips addresses clips play from.
 */
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import {
  filesystemMediaRoutes,
  type FilesystemStorage,
} from '../../providers/storage/filesystem-storage.ts';
import type { ClipStorage } from '../../providers/storage/storage.ts';
import { livestreamPublicRoutes } from './livestream.public-routes.ts';
import type { LivestreamService } from './livestream.service.ts';

export async function livestreamPublicPlugin(
  app: FastifyInstance,
  options: {
    livestreaming: { service: LivestreamService; storage: ClipStorage };
    db: Database;
    clock: Clock;
    publicUrl: string;
  },
) {
  const { livestreaming } = options;
  await app.register(livestreamPublicRoutes, {
    livestream: livestreaming.service,
    db: options.db,
    clock: options.clock,
    publicUrl: options.publicUrl,
    mediaOrigins: livestreaming.storage.mediaOrigins,
  });
  if (livestreaming.storage.kind === 'fs') {
    await app.register(filesystemMediaRoutes, {
      storage: livestreaming.storage as FilesystemStorage,
      clock: options.clock,
    });
  }
}
