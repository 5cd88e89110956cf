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
import { livestreamPublicRoutes } from './public-playback.routes.ts';
import type { LivestreamPlaybackService } from './public-playback.service.ts';

export async function livestreamPublicPlugin(
  app: FastifyInstance,
  options: {
    playback: LivestreamPlaybackService;
    /** Where clips are kept; with filesystem storage this plugin also serves them. */
    storage: ClipStorage;
    db: Database;
    clock: Clock;
    publicUrl: string;
  },
) {
  const { storage } = options;
  await app.register(livestreamPublicRoutes, {
    playback: options.playback,
    db: options.db,
    clock: options.clock,
    publicUrl: options.publicUrl,
    mediaOrigins: storage.mediaOrigins,
  });
  if (storage.kind === 'fs') {
    await app.register(filesystemMediaRoutes, {
      storage: storage as FilesystemStorage,
      clock: options.clock,
    });
  }
}
