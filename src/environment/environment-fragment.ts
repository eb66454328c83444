import type { z } from 'zod';

/** What a fragment made of the environment: its settings, or the problems, one line a variable. */
export type FragmentReading<Settings> =
  | { readonly settings: Settings | undefined; readonly secrets: readonly string[] }
  | { readonly problems: readonly string[] };

/**
 * The variables one part of parley owns (a platform adapter: adapters/discord/discord-config.ts),
 * declared beside its code and read by src/config.ts together with the shared ones, so a wrong value
 * anywhere is reported in the same one message. The generated docs (docs/configuration.md,
 * .env.example) walk the fragment's schema like the shared one.
 */
export interface EnvironmentFragment<Settings> {
  /** Every variable of the fragment, each documented (`document`, `section`); may check them together. */
  readonly schema: z.ZodObject;
  /**
   * True when running this part makes parley a long-running service (Discord, Slack): the health
   * server is then on by default. The terminal chat is not one.
   */
  readonly isService: boolean;
  /** Parses the fragment's variables out of the whole environment. */
  read(environment: Readonly<Record<string, string>>): FragmentReading<Settings>;
}

/** The settings type a fragment reads. */
export type SettingsOf<Fragment> = Fragment extends EnvironmentFragment<infer Settings> ? Settings : never;

/**
 * Declares a fragment: its schema, what it makes of the parsed values (undefined when they say this
 * part is not used, such as no token), and which of them are secrets the logger must scrub.
 */
export function defineEnvironmentFragment<Schema extends z.ZodObject, Settings>({
  schema,
  isService,
  settingsOf,
  secretsOf,
}: {
  schema: Schema;
  isService: boolean;
  settingsOf: (values: z.output<Schema>) => Settings | undefined;
  secretsOf: (values: z.output<Schema>) => ReadonlyArray<string | undefined>;
}): EnvironmentFragment<Settings> {
  return {
    schema,
    isService,
    read(environment) {
      const parsed = schema.safeParse(environment);
      if (!parsed.success) {
        return { problems: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) };
      }
      return {
        settings: settingsOf(parsed.data),
        secrets: secretsOf(parsed.data).filter((secret): secret is string => secret !== undefined),
      };
    },
  };
}
