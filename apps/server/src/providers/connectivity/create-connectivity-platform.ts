import type { Config } from '../../config/config.ts';
import type { Database } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { LocalCamera } from '../camera/local-camera.ts';
import { createHttpSimPlatform, type HttpSimPlatform } from './http-sim-platform.ts';
import { createLocalSimPlatform, type LocalSimPlatform } from './local-sim-platform.ts';

/** The SIM platform CONNECTIVITY names: the local one (default) or a platform's HTTP API. */
export function createConnectivityPlatform(
  config: Config['connectivity'],
  deps: {
    db: Database;
    clock: Clock;
    log: { warn(details: object, message: string): void };
    /** Local mode: the RTSP server behind every SIM's camera (livestreaming). */
    camera?: LocalCamera;
  },
): LocalSimPlatform | HttpSimPlatform {
  if (config.mode === 'http') {
    return createHttpSimPlatform({
      url: config.url,
      apiKey: config.apiKey,
      onRetry: (detail) => deps.log.warn(detail, 'SIM platform call failed; retrying'),
    });
  }
  return createLocalSimPlatform({ db: deps.db, clock: deps.clock, camera: deps.camera });
}
