/**
 * Where the marketing page's demo clip is recorded from: SHOWCASE_RTSP_URL, or else (local mode)
 * the local demo camera's SD stream.
 */
import type { Config } from '../config/config.ts';
import type { LocalCamera } from '../providers/camera/local-camera.ts';

export function showcaseSourceFrom(
  config: Config,
  localCamera: LocalCamera | undefined,
): (() => Promise<string>) | undefined {
  const configured = config.livestreaming.showcaseRtspUrl;
  if (configured) return async () => configured;
  if (!localCamera) return undefined;
  return async () => {
    const address = await localCamera.ensureRunning();
    return `rtsp://${address.host}:${address.port}/12`;
  };
}
