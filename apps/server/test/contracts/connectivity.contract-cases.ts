/**
 * What every ConnectivityPlatform must do, run against the local platform and against the HTTP
 * adapter talking to the fake server. A new port method gets its cases here.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.ts';
import type {
  ConnectivityPlatform,
  PlatformSimState,
} from '../../src/providers/connectivity/connectivity.ts';

export interface PlatformUnderTest {
  platform: ConnectivityPlatform;
  addSim(sim: { iccid: string; state: PlatformSimState; isBarred?: boolean }): Promise<void>;
  setUsage(iccid: string, day: string, bytes: number): Promise<void>;
}

let serial = 0;
/** A fresh 19-digit ICCID per case, so cases do not see each other's SIMs. */
const freshIccid = () => `8944770000${String((serial += 1)).padStart(9, '0')}`;

const errorCode = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return 'no error';
  } catch (error) {
    return error instanceof AppError ? error.code : String(error);
  }
};

export function describeConnectivityPlatform(name: string, setup: () => PlatformUnderTest): void {
  describe(`${name}: the connectivity port`, () => {
    it('returns the SIMs it knows, leaving unknown ones out', async () => {
      const { platform, addSim } = setup();
      const [live, paused, unknown] = [freshIccid(), freshIccid(), freshIccid()];
      await addSim({ iccid: live, state: 'active' });
      await addSim({ iccid: paused, state: 'paused', isBarred: true });
      const found = await platform.getSims([live, paused, unknown]);
      expect(
        found
          .map((sim) => [sim.iccid, sim.state, sim.isBarred])
          .sort((left, right) => String(left[0]).localeCompare(String(right[0]))),
      ).toEqual([
        [live, 'active', false],
        [paused, 'paused', true],
      ]);
      expect(await platform.getSims([])).toEqual([]);
      expect(await errorCode(platform.getSims(Array.from({ length: 101 }, freshIccid)))).toBe(
        'VALIDATION_FAILED',
      );
    });

    it('activates a SIM from stock once, and repeats harmlessly', async () => {
      const { platform, addSim } = setup();
      const iccid = freshIccid();
      await addSim({ iccid, state: 'stock' });
      const first = await platform.activateSim(iccid);
      expect(first.state).toBe('active');
      expect(first.activatedAt).toBeInstanceOf(Date);
      const again = await platform.activateSim(iccid);
      expect(again.activatedAt?.getTime()).toBe(first.activatedAt?.getTime());
    });

    it('pauses and resumes; pausing twice is no change', async () => {
      const { platform, addSim } = setup();
      const iccid = freshIccid();
      await addSim({ iccid, state: 'active' });
      expect((await platform.pauseSim(iccid)).state).toBe('paused');
      expect((await platform.pauseSim(iccid)).state).toBe('paused');
      expect((await platform.resumeSim(iccid)).state).toBe('active');
    });

    it('terminates for good', async () => {
      const { platform, addSim } = setup();
      const iccid = freshIccid();
      await addSim({ iccid, state: 'paused' });
      const terminated = await platform.terminateSim(iccid);
      expect(terminated.state).toBe('terminated');
      expect(terminated.terminatedAt).toBeInstanceOf(Date);
      expect((await platform.terminateSim(iccid)).state).toBe('terminated');
      expect(await errorCode(platform.activateSim(iccid))).toBe('CONFLICT');
      expect(await errorCode(platform.resumeSim(iccid))).toBe('CONFLICT');
    });

    it('refuses impossible changes and unknown SIMs', async () => {
      const { platform, addSim } = setup();
      const iccid = freshIccid();
      await addSim({ iccid, state: 'stock' });
      expect(await errorCode(platform.pauseSim(iccid))).toBe('CONFLICT');
      expect(await errorCode(platform.terminateSim(iccid))).toBe('CONFLICT');
      expect(await errorCode(platform.activateSim(freshIccid()))).toBe('NOT_FOUND');
    });

    it('reports routers of active, unbarred SIMs only', async () => {
      const { platform, addSim } = setup();
      const [live, paused, barred] = [freshIccid(), freshIccid(), freshIccid()];
      await addSim({ iccid: live, state: 'active' });
      await addSim({ iccid: paused, state: 'paused' });
      await addSim({ iccid: barred, state: 'active', isBarred: true });
      const routers = await platform.getRouterStatuses([live, paused, barred]);
      expect(routers).toEqual([
        {
          iccid: live,
          networkName: expect.any(String),
          networkProvider: expect.any(String),
          signalStrength: expect.stringMatching(/^(Excellent|Good|Fair|Poor|No signal)$/),
          signalDbm: expect.any(Number),
          reportedAt: expect.any(Date),
        },
      ]);
    });

    it("opens the RTSP port of an active SIM's camera, and only that", async () => {
      const { platform, addSim } = setup();
      const [live, paused, barred, unknown] = [
        freshIccid(),
        freshIccid(),
        freshIccid(),
        freshIccid(),
      ];
      await addSim({ iccid: live, state: 'active' });
      await addSim({ iccid: paused, state: 'paused' });
      await addSim({ iccid: barred, state: 'active', isBarred: true });
      const access = await platform.openCameraPorts(live, [554]);
      expect(access).toEqual({
        iccid: live,
        host: expect.any(String),
        ports: { 554: expect.any(Number) },
      });
      expect(access.host).not.toBe('');
      expect(access.ports[554]).toBeGreaterThan(0);
      // Opening again is harmless.
      expect((await platform.openCameraPorts(live, [554])).ports[554]).toBe(access.ports[554]);
      expect(await errorCode(platform.openCameraPorts(paused, [554]))).toBe('CONFLICT');
      expect(await errorCode(platform.openCameraPorts(barred, [554]))).toBe('CONFLICT');
      expect(await errorCode(platform.openCameraPorts(unknown, [554]))).toBe('NOT_FOUND');
      expect(await errorCode(platform.openCameraPorts(live, [22]))).toBe('VALIDATION_FAILED');
    });

    it('gives daily usage within the range asked for', async () => {
      const { platform, addSim, setUsage } = setup();
      const iccid = freshIccid();
      await addSim({ iccid, state: 'active' });
      await setUsage(iccid, '2026-03-08', 1_000);
      await setUsage(iccid, '2026-03-09', 2_000);
      await setUsage(iccid, '2026-03-10', 3_000);
      const usage = await platform.getDailyUsage({
        iccids: [iccid],
        from: '2026-03-09',
        to: '2026-03-10',
      });
      expect(usage.sort((left, right) => left.day.localeCompare(right.day))).toEqual([
        { iccid, day: '2026-03-09', bytes: 2_000 },
        { iccid, day: '2026-03-10', bytes: 3_000 },
      ]);
    });

    it("stops a SIM's data at the customer's request and lets it through again, harmlessly twice", async () => {
      const { platform, addSim } = setup();
      const [live, ended, unknown] = [freshIccid(), freshIccid(), freshIccid()];
      await addSim({ iccid: live, state: 'active' });
      await addSim({ iccid: ended, state: 'terminated' });
      expect(await platform.setDataStopped(live, true)).toEqual({ iccid: live, stopped: true });
      expect(await platform.setDataStopped(live, true)).toEqual({ iccid: live, stopped: true });
      // The customer's stop is neither a state change nor the provider's bar.
      const [sim] = await platform.getSims([live]);
      expect([sim?.state, sim?.isBarred]).toEqual(['active', false]);
      expect(await platform.setDataStopped(live, false)).toEqual({ iccid: live, stopped: false });
      expect(await platform.setDataStopped(live, false)).toEqual({ iccid: live, stopped: false });
      expect(await errorCode(platform.setDataStopped(ended, true))).toBe('CONFLICT');
      expect(await errorCode(platform.setDataStopped(unknown, true))).toBe('NOT_FOUND');
    });
  });
}
