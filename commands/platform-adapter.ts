import type { Config } from '../src/config.ts';
import type { EnvironmentFragment } from '../src/environment/environment-fragment.ts';
import type { Logger } from '../src/log.ts';
import type { Coordination } from '../src/state/coordination.ts';
import type { Store } from '../src/state/create-store.ts';
import type { CommandServices } from './define-command.ts';

/** What a platform is started with. */
export interface PlatformStartContext<Settings> {
  /** The core and the commands, shared by every platform of the process. */
  readonly services: CommandServices;
  /** What the platform's own variables (its `configSchema`) said. */
  readonly settings: Settings;
  /** The core's settings (image limits and the like). */
  readonly config: Config;
  readonly logger: Logger;
  /**
   * What the processes of one bot share on Redis (this process's own otherwise): the dedupe of
   * platform events, so one event is answered once however many processes receive it, and the
   * windows and buckets of a bot token's request budget.
   */
  readonly coordination: Pick<
    Coordination,
    'eventDeduper' | 'createSharedWindow' | 'createSharedBucket' | 'recordLock'
  >;
  /** The bot's store, for what a platform keeps across restarts in a namespace of its own. */
  readonly store: Pick<Store, 'namespace'>;
}

/** A platform as it runs. */
export interface RunningPlatform {
  /** Stops taking events; replies in progress are stopped by the process, not here. */
  stop(): Promise<void>;
  /**
   * Resolves when the platform ends by itself (the person at the terminal left); a service such as
   * Discord or Slack never does, and runs until the process is signalled.
   */
  readonly ended?: Promise<void>;
}

/**
 * The seam a platform plugs into: its name, the environment variables it owns, and how to start it.
 * bin/parley.ts lists the adapters; nothing in src/ or commands/ knows any of them, so a new platform
 * is a folder in adapters/ and one line in bin/platform-adapters.ts.
 */
export interface PlatformAdapter<Settings> {
  /** The platform's name in logs, metrics, readiness and conversation keys (`discord`). */
  readonly name: string;
  /** The variables it owns, read and checked with the core's; no settings means it does not start. */
  readonly configSchema: EnvironmentFragment<Settings>;
  /** Connects (or starts listening) and resolves once it is ready, or rejects with one clear sentence. */
  start(context: PlatformStartContext<Settings>): Promise<RunningPlatform>;
}
