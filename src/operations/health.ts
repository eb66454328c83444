import { recordPlatformConnection } from './metrics.ts';

/**
 * Whether parley can do its work: the store answers and every platform it runs on is connected.
 * Adapters report their connection here from their start function; the health server asks.
 * One record a process, like the metrics registry.
 */

interface PlatformState {
  readonly isConnected: boolean;
  /** In words, e.g. `connected`, `reconnecting`, `disconnected (code 4000)`. */
  readonly state: string;
}

const platformStates = new Map<string, PlatformState>();

/** Called by an adapter whenever its connection comes up or goes down. */
export function reportPlatformConnection({
  platform,
  isConnected,
  state = isConnected ? 'connected' : 'disconnected',
}: {
  platform: string;
  isConnected: boolean;
  state?: string;
}): void {
  platformStates.set(platform, { isConnected, state });
  recordPlatformConnection({ platform, isConnected });
}

const warningSources = new Map<string, () => string | undefined>();

/**
 * A condition an operator should see before it becomes an outage (Discord's invalid requests nearing
 * the limit that gets the IP banned): `warning` is asked at every /readyz, so what has passed stops
 * showing without anyone reporting it; a warning does not make parley not ready. One source a topic:
 * the last registered.
 */
export function registerWarning({
  topic,
  warning,
}: {
  topic: string;
  warning: () => string | undefined;
}): void {
  warningSources.set(topic, warning);
}

/** The answer of GET /readyz: every check by name, and the reasons when something is not ready. */
export interface Readiness {
  readonly isReady: boolean;
  readonly checks: Readonly<Record<string, string>>;
  readonly reasons: readonly string[];
  /** What an operator should look at now, though parley still works. */
  readonly warnings: readonly string[];
}

/**
 * Asks the store (within `timeoutMs`) and looks at the platforms parley was started for; a platform
 * that has not reported yet is still connecting.
 */
export async function checkReadiness({
  platforms,
  probeStore,
  timeoutMs = 2_000,
}: {
  platforms: readonly string[];
  /** Resolves when the store answers a read; rejects when it cannot. */
  probeStore: () => Promise<unknown>;
  timeoutMs?: number;
}): Promise<Readiness> {
  const checks: Record<string, string> = {};
  const reasons: string[] = [];
  const store = await storeState(probeStore, timeoutMs);
  checks.store = store;
  if (store !== 'ok') reasons.push(`store: ${store}`);
  for (const platform of platforms) {
    const state = platformStates.get(platform) ?? { isConnected: false, state: 'connecting' };
    checks[platform] = state.state;
    if (!state.isConnected) reasons.push(`${platform}: ${state.state}`);
  }
  return {
    isReady: reasons.length === 0,
    checks,
    reasons,
    warnings: [...warningSources.values()].flatMap((warning) => warning() ?? []),
  };
}

async function storeState(probeStore: () => Promise<unknown>, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    return await Promise.race([
      probeStore().then(
        () => 'ok',
        // The error's own words may carry a host or a URL; its code says enough here, the log has the rest.
        (error: unknown) =>
          `unreachable (${(error as NodeJS.ErrnoException).code ?? (error as Error).name ?? 'error'})`,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
