import { z } from 'zod';
import { defineEnvironmentFragment } from '../../src/environment/environment-fragment.ts';
import { document, optionalText, section } from '../../src/environment/setting-schemas.ts';

/** The echo platform's own variable, declared beside it like Discord's and Slack's. */
const echoVariables = z.object(
  section('Echo (a test platform)', {
    ECHO_BOT_NAME: document(optionalText, {
      description: 'The name the bot goes by in the echo room; setting it runs parley there.',
    }),
  }),
);

export interface EchoSettings {
  readonly botName: string;
}

export const echoConfig = defineEnvironmentFragment({
  schema: echoVariables,
  isService: true,
  settingsOf: (values): EchoSettings | undefined =>
    values.ECHO_BOT_NAME ? { botName: values.ECHO_BOT_NAME } : undefined,
  secretsOf: () => [],
});
