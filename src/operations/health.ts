import { recordPlatformConnection } from './metrics.ts';

/**
 * Whether parley can do its work: the store answers and every platform it runs on is connected and
 * answering its calls.
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

/**
 * How long one kind of platform call must have kept failing for want of the platform (a 5xx, no
 * answer) before /readyz says the platform is degraded: one failed call that the next retry gets
 * through is not an outage.
 */
export const platformDegradedAfterMs = 3_000;

/** A failing kind of call nobody has made for this long says nothing about the platform now. */
const staleFailureMs = 60_000;

/** One kind of call (`POST /channels/:id/messages`) failing since `firstFailedAtMs`. */
interface FailingCall {
  readonly firstFailedAtMs: number;
  lastFailedAtMs: number;
  /** The last failure in words: `502`, `no answer (ECONNRESET)`. */
  failure: string;
}

const failingCalls = new Map<string, Map<string, FailingCall>>();

/**
 * Called by an adapter with the outcome of each call to its platform's API: `failure` when the
 * platform failed it (a 5xx, no answer), undefined when the platform answered (a 4xx is an answer:
 * the platform is up). `route` is the kind of call with every id generalised, so the record stays small.
 */
export function reportPlatformCall({
  platform,
  route,
  failure,
  nowMs = Date.now(),
}: {
  platform: string;
  route: string;
  failure?: string | undefined;
  nowMs?: number;
}): void {
  let routes = failingCalls.get(platform);
  if (failure === undefined) {
    routes?.delete(route);
    return;
  }
  if (routes === undefined) {
    routes = new Map();
    failingCalls.set(platform, routes);
  }
  const failing = routes.get(route);
  if (failing === undefined) routes.set(route, { firstFailedAtMs: nowMs, lastFailedAtMs: nowMs, failure });
  else {
    failing.lastFailedAtMs = nowMs;
    failing.failure = failure;
  }
}

/**
 * Why replies on `platform` are not getting through, when some kind of call has failed for
 * `platformDegradedAfterMs` or longer and was still failing lately; undefined otherwise.
 */
export function platformDegradation(platform: string, nowMs = Date.now()): string | undefined {
  const routes = failingCalls.get(platform);
  if (routes === undefined) return undefined;
  const degraded: string[] = [];
  for (const [route, failing] of routes) {
    if (nowMs - failing.lastFailedAtMs > staleFailureMs) {
      routes.delete(route);
      continue;
    }
    const failingForMs = failing.lastFailedAtMs - failing.firstFailedAtMs;
    if (failingForMs < platformDegradedAfterMs) continue;
    degraded.push(`${route} failing (${failing.failure}) for ${Math.round(failingForMs / 1000)} s`);
  }
  return degraded.length === 0 ? undefined : `platform degraded: ${degraded.join(', ')}`;
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
    // Connected, yet its calls keep failing (an outage of its API): replies are not getting out.
    const degradation = state.isConnected ? platformDegradation(platform) : undefined;
    checks[platform] = degradation === undefined ? state.state : `${state.state}; ${degradation}`;
    if (!state.isConnected) reasons.push(`${platform}: ${state.state}`);
    else if (degradation !== undefined) reasons.push(`${platform}: ${degradation}`);
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
