/**
 * Which process runs the local demo camera (CONNECTIVITY=local, docs/decisions/070). The camera
 * is recorded from, so it runs where the recorder runs: ROLE=worker or all starts it on first
 * use. An API process (ROLE=api) never starts one: when a customer sets a camera up there, the
 * local SIM platform answers with the address the workers' camera listens on by default
 * (127.0.0.1 and LOCAL_CAMERA_PORT); the recording job opens the ports again on the worker and
 * writes the camera's real address on the livestream if its camera had to take another port.
 * The API still runs `check()` so the livestream pages can say what the machine lacks.
 */
import type { Config } from '../config/config.ts';
import { createLocalCamera, type LocalCamera } from '../providers/camera/local-camera.ts';

/** The port a worker's camera takes when LOCAL_CAMERA_PORT is 0 or taken is not known here. */
const defaultCameraPort = 8554;

export function localCameraForRole(
  config: Config,
  log: { info(message: string): void; warn(message: string): void },
): LocalCamera | undefined {
  if (config.connectivity.mode !== 'local') return undefined;
  const camera = createLocalCamera({
    port: config.livestreaming.localCameraPort,
    isFallbackToFreePort: true,
    log,
  });
  if (config.role !== 'api') return camera;
  return {
    check: () => camera.check(),
    async ensureRunning() {
      return { host: '127.0.0.1', port: config.livestreaming.localCameraPort || defaultCameraPort };
    },
    async stop() {},
  };
}
