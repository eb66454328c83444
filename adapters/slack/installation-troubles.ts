import { registerWarning } from '../../src/operations/health.ts';

/**
 * Workspaces whose installation cannot be used now: one that does not open (reinstall needed) or
 * whose token refresh failed. Each is named on /readyz as a warning, so an operator sees which
 * workspace degraded while the others keep working; a later good read clears it.
 */
export interface InstallationTroubles {
  report(installation: string, trouble: string): void;
  clear(installation: string): void;
  /** The /readyz warning, or undefined when every installation read lately was fine. */
  warning(): string | undefined;
}

export function createInstallationTroubles(): InstallationTroubles {
  const troubles = new Map<string, string>();
  return {
    report: (installation, trouble) => troubles.set(installation, trouble),
    clear: (installation) => troubles.delete(installation),
    warning: () =>
      troubles.size === 0
        ? undefined
        : `slack: ${[...troubles].map(([installation, trouble]) => `${installation} ${trouble}`).join(', ')}`,
  };
}

/** Shows the troubles on /readyz (one source: the adapter started last). */
export function reportInstallationTroubles(troubles: InstallationTroubles): void {
  registerWarning({ topic: 'slack-installations', warning: troubles.warning });
}
