/**
 * The connectivity port: the SIM platform that provisions our SIMs on the mobile networks, knows
 * their state, meters their data and sees the routers they sit in.
 *
 * Implementations:
 * - `local-sim-platform.ts` (default, CONNECTIVITY=local): the platform kept in our own database,
 *   with simulated router status and an hourly usage recorder.
 * - `http-sim-platform.ts` (CONNECTIVITY=http): a platform's REST API, described in
 *   docs/connectivity-api.md.
 *
 * Pages never call the port: SIM state, usage and router status are mirrored into our tables by
 * the sync job (modules/usage/connectivity-sync.service.ts) and read from there. Writes (state
 * changes) go to the platform first, then to our tables.
 *
 * Adding a capability (e.g. opening camera ports for livestreaming) means: a method here with its
 * JSDoc, the same in both implementations, an endpoint in docs/connectivity-api.md and the fake
 * platform server, and a case in the shared port tests
 * (apps/server/test/contracts/connectivity.contract-cases.ts).
 */
import { AppError } from '../../errors.ts';

/** The platform's view of a SIM's life: in stock, live, paused (no data), terminated (final). */
export type PlatformSimState = 'stock' | 'active' | 'paused' | 'terminated';

export interface PlatformSim {
  iccid: string;
  state: PlatformSimState;
  /** Disabled by the provider (fraud, abuse, network order): no data whatever the state. */
  isBarred: boolean;
  activatedAt: Date | null;
  terminatedAt: Date | null;
}

export const signalStrengths = ['Excellent', 'Good', 'Fair', 'Poor', 'No signal'] as const;
export type SignalStrength = (typeof signalStrengths)[number];

/** What the router in a camera last reported. */
export interface PlatformRouterStatus {
  iccid: string;
  /** The camera router's local (Wi-Fi) network name. */
  networkName: string;
  /** The mobile network in use, e.g. "Vodafone UK". */
  networkProvider: string;
  signalStrength: SignalStrength;
  signalDbm: number;
  reportedAt: Date;
}

/** Data metered for one SIM on one UTC day; the platform's running total for that day. */
export interface PlatformDailyUsage {
  iccid: string;
  /** YYYY-MM-DD (UTC). */
  day: string;
  bytes: number;
}

/**
 * Where our servers reach the ports of a SIM's camera once they are open: the platform forwards
 * them from its private APN to an address of its own (livestreaming records RTSP through it).
 */
export interface CameraAccess {
  iccid: string;
  /** Host name or IP address to connect to. */
  host: string;
  /** Each camera port asked for → the port to connect to on `host`. */
  ports: Record<number, number>;
}

/** Camera ports a platform opens on request: RTSP (docs/requirements.md#limits), nothing else. */
export const openableCameraPorts: readonly number[] = [554];

/** The most ICCIDs one batch call takes. */
export const maxPlatformBatchSize = 100;

/**
 * A data stop the customer chose (decision 095: pause data at the plan's allowance), kept apart
 * from `isBarred` (the provider's own decision): the SIM stays active, only its data is held.
 */
export interface PlatformDataStop {
  iccid: string;
  stopped: boolean;
}

export interface StateChangeOptions {
  /** Repeating a call with the same key applies it once (the HTTP adapter sends it as a header). */
  idempotencyKey?: string;
}

export interface ConnectivityPlatform {
  readonly kind: 'local' | 'http';

  /** The SIMs the platform knows among `iccids` (at most maxPlatformBatchSize); unknown ones are left out. */
  getSims(iccids: readonly string[]): Promise<PlatformSim[]>;

  /** The latest router report of each of these SIMs that has one (active, unbarred SIMs only). */
  getRouterStatuses(iccids: readonly string[]): Promise<PlatformRouterStatus[]>;

  /** Daily usage of these SIMs from `from` to `to` inclusive (YYYY-MM-DD); days without data may be left out. */
  getDailyUsage(query: {
    iccids: readonly string[];
    from: string;
    to: string;
  }): Promise<PlatformDailyUsage[]>;

  /** Stock or paused → active. Active already: no change. Terminated: CONFLICT. */
  activateSim(iccid: string, options?: StateChangeOptions): Promise<PlatformSim>;

  /** Active → paused (no data, no charges on the network side). Paused already: no change. */
  pauseSim(iccid: string, options?: StateChangeOptions): Promise<PlatformSim>;

  /** Paused → active. Active already: no change. */
  resumeSim(iccid: string, options?: StateChangeOptions): Promise<PlatformSim>;

  /** Any live state → terminated, for good. Terminated already: no change. */
  terminateSim(iccid: string, options?: StateChangeOptions): Promise<PlatformSim>;

  /**
   * Opens these ports of the camera behind an active, unbarred SIM to our servers and says where
   * to reach them. Opening again is harmless and answers the current address (it may change, so
   * callers ask before each use). Unknown SIM: NOT_FOUND. SIM not active, or barred: CONFLICT.
   * A port other than those in openableCameraPorts: VALIDATION_FAILED.
   */
  openCameraPorts(iccid: string, ports: readonly number[]): Promise<CameraAccess>;

  /**
   * Stops (true) or lets through again (false) the data of this SIM at the customer's request;
   * it says nothing about the SIM's state or the provider's bar. Asking for what already holds is
   * no change. Unknown SIM: NOT_FOUND. Terminated SIM: CONFLICT.
   */
  setDataStopped(
    iccid: string,
    stopped: boolean,
    options?: StateChangeOptions,
  ): Promise<PlatformDataStop>;
}

/** The check both implementations make on the ports asked for. */
export function assertOpenableCameraPorts(ports: readonly number[]): void {
  if (ports.length === 0 || ports.some((port) => !openableCameraPorts.includes(port))) {
    throw new AppError(
      'VALIDATION_FAILED',
      `Only camera port ${openableCameraPorts.join(', ')} can be opened`,
    );
  }
}

/** The platform could not be reached or failed; the caller may try again later. */
export function platformUnavailable(detail: string): AppError {
  return new AppError(
    'PROVIDER_UNAVAILABLE',
    `The SIM platform is not available right now (${detail}). Please try again later.`,
  );
}

/** Which transitions are allowed, shared by the local platform and the fake server. */
export function nextSimState(
  current: PlatformSimState,
  action: 'activate' | 'pause' | 'resume' | 'terminate',
): PlatformSimState | { error: string } {
  switch (action) {
    case 'activate':
      return current === 'terminated'
        ? { error: 'A terminated SIM cannot be activated' }
        : 'active';
    case 'pause':
      return current === 'active' || current === 'paused'
        ? 'paused'
        : { error: `A ${current} SIM cannot be paused` };
    case 'resume':
      return current === 'active' || current === 'paused'
        ? 'active'
        : { error: `A ${current} SIM cannot be resumed` };
    case 'terminate':
      return current === 'stock' ? { error: 'A SIM in stock cannot be terminated' } : 'terminated';
  }
}

/** docs/requirements.md#screens router card wording for a dBm reading (RSRP-like scale). */
export function signalStrengthFromDbm(dbm: number): SignalStrength {
  if (dbm >= -80) return 'Excellent';
  if (dbm >= -90) return 'Good';
  if (dbm >= -100) return 'Fair';
  if (dbm >= -115) return 'Poor';
  return 'No signal';
}
