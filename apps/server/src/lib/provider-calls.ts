/**
 * Every call to an outside provider (billing, SIM platform, SMTP, S3, Ofcom) goes through
 * `trackProviderCall`: it remembers each provider's last outcome (read by /api/readyz) and reports
 * latency and errors to the metrics (docs/decisions/071).
 */

export const providerNames = [
  'billing',
  'sim-platform',
  'smtp',
  's3',
  'ofcom',
  'push',
  'sms',
] as const;
export type ProviderName = (typeof providerNames)[number];

export interface ProviderCallState {
  /**
   * `unknown` until this process has called the provider once; `off` for a provider this
   * deployment has not configured (push without VAPID keys, SMS without Twilio: decision 124).
   */
  state: 'ok' | 'failing' | 'unknown' | 'off';
  /** ISO time of the last call's end. */
  at?: string;
  /** The last failure's message (no secrets: the error's message only). */
  error?: string;
}

/** Told of each call's end; the metrics module subscribes (one observer per process). */
export type ProviderCallObserver = (outcome: {
  provider: ProviderName;
  operation: string;
  seconds: number;
  isError: boolean;
}) => void;

const lastCalls = new Map<ProviderName, ProviderCallState>();
const switchedOff = new Set<ProviderName>();

/** Says whether this deployment uses the provider at all (readyz reports `off` when not). */
export function setProviderConfigured(provider: ProviderName, isConfigured: boolean): void {
  if (isConfigured) switchedOff.delete(provider);
  else switchedOff.add(provider);
}
const observers: ProviderCallObserver[] = [];

export function observeProviderCalls(observer: ProviderCallObserver): () => void {
  observers.push(observer);
  return () => {
    const index = observers.indexOf(observer);
    if (index >= 0) observers.splice(index, 1);
  };
}

export async function trackProviderCall<T>(
  provider: ProviderName,
  operation: string,
  call: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  const finish = (isError: boolean, error?: unknown) => {
    const seconds = (performance.now() - started) / 1000;
    lastCalls.set(provider, {
      state: isError ? 'failing' : 'ok',
      at: new Date().toISOString(),
      ...(isError ? { error: error instanceof Error ? error.message : String(error) } : {}),
    });
    for (const observer of observers) observer({ provider, operation, seconds, isError });
  };
  try {
    const result = await call();
    finish(false);
    return result;
  } catch (error) {
    finish(true, error);
    throw error;
  }
}

/** Each provider's last outcome in this process. */
export function lastProviderCalls(): Record<ProviderName, ProviderCallState> {
  return Object.fromEntries(
    providerNames.map((name) => [
      name,
      switchedOff.has(name) ? { state: 'off' } : (lastCalls.get(name) ?? { state: 'unknown' }),
    ]),
  ) as Record<ProviderName, ProviderCallState>;
}
