import { describe, expect, it } from 'vitest';
import { testConfig, type Config } from '../config/config.ts';
import { localCameraForRole } from './local-camera-for-role.ts';

const quiet = { info: () => {}, warn: () => {} };
const withCamera = (role: Config['role'], localCameraPort: number) =>
  testConfig({ role, livestreaming: { ...testConfig().livestreaming, localCameraPort } });

describe('localCameraForRole (decision 070)', () => {
  it('gives an API process an address to point at, never a camera process', async () => {
    const camera = localCameraForRole(withCamera('api', 8654), quiet)!;
    expect(await camera.ensureRunning()).toEqual({ host: '127.0.0.1', port: 8654 });
    // Nothing was started, so nothing is stopped (stop() of a real camera waits for its exit).
    await expect(camera.stop()).resolves.toBeUndefined();
  });

  it('names the default port when the workers pick a free one', async () => {
    const camera = localCameraForRole(withCamera('api', 0), quiet)!;
    expect((await camera.ensureRunning()).port).toBe(8554);
  });

  it('runs none with a real SIM platform', () => {
    const config = testConfig({
      role: 'worker',
      connectivity: { mode: 'http', url: 'https://sims.example', apiKey: 'key' },
    });
    expect(localCameraForRole(config, quiet)).toBeUndefined();
  });
});
