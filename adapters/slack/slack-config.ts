import { z } from 'zod';
import { defineEnvironmentFragment } from '../../src/environment/environment-fragment.ts';
import { document, httpUrl, optionalText, section } from '../../src/environment/setting-schemas.ts';
import type { AgentSessionsMode } from './agent-session-records.ts';

/**
 * The variables of the Slack adapter; SLACK_BOT_TOKEN turns it on, with SLACK_APP_TOKEN (Socket Mode)
 * or SLACK_SIGNING_SECRET (HTTP mode, where every request is signed with it).
 */
const slackVariables = z
  .object(
    section('Slack', {
      SLACK_BOT_TOKEN: document(
        optionalText.pipe(
          z.string().startsWith('xoxb-', 'must be a bot token starting with xoxb-').optional(),
        ),
        {
          description:
            'Bot User OAuth Token (xoxb-…); it runs parley on Slack, with SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode).',
          typeText: 'secret text',
        },
      ),
      SLACK_SIGNING_SECRET: document(optionalText, {
        description:
          'Basic Information → Signing Secret; required in HTTP mode (without SLACK_APP_TOKEN), where it checks every request. Socket Mode does not use it.',
        typeText: 'secret text',
      }),
      SLACK_APP_TOKEN: document(
        optionalText.pipe(
          z.string().startsWith('xapp-', 'must be an app-level token starting with xapp-').optional(),
        ),
        {
          description:
            'App-level token (xapp-…) with connections:write: Socket Mode, no public URL needed. Unset: HTTP mode, events at POST /slack/events on PORT.',
          typeText: 'secret text',
        },
      ),
      SLACK_COMMAND_PREFIX: document(
        z
          .string()
          .trim()
          .regex(/^[a-z0-9_-]*$/, 'may hold only a-z, 0-9, - and _')
          .default(''),
        {
          description:
            'Put before every slash command name to avoid clashes, e.g. parley- gives /parley-imagine.',
        },
      ),
      SLACK_REPLY_TO_BOTS: document(z.stringbool({ error: 'must be true or false' }).default(false), {
        description: 'Answer messages from other bots too (never its own).',
        typeText: 'true or false',
      }),
      SLACK_AGENT_SESSIONS: document(z.enum(['auto', 'on', 'off']).default('auto'), {
        description:
          'Agent sessions (agents.sessions.setStatus / rename) for an app declared as an agent: auto tries them with the first reply slow enough to need a status, and from then on with every reply, using the assistant thread calls in a workspace that refuses them; on starts a session with every reply from the first; off never does.',
        typeText: 'auto, on or off',
      }),
      PORT: document(
        z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65_535).default(3000),
        {
          description: 'HTTP port for Slack events in HTTP mode.',
          typeText: 'port',
        },
      ),
      HOST: document(z.string().trim().min(1, 'must be a host name or address').default('127.0.0.1'), {
        description:
          'The interface the HTTP mode listens on: 127.0.0.1 behind a reverse proxy on the same machine, 0.0.0.0 to take requests from every interface (a container).',
        typeText: 'host name or IP address',
      }),
      SLACK_API_URL: document(
        httpUrl({ example: 'https://slack.com/api/' })
          .default('https://slack.com/api/')
          // Bolt joins method names onto it, so it ends in exactly one slash (a default skips the schema).
          .transform((value) => (value.endsWith('/') ? value : `${value}/`)),
        {
          description: 'Web API base URL. Change only for a proxy or a local fake.',
          typeText: 'http(s) URL',
        },
      ),
    }),
  )
  .superRefine((values, context) => {
    // Socket Mode needs no signing secret: Slack's requests come over the app's own connection.
    if (values.SLACK_BOT_TOKEN && !values.SLACK_APP_TOKEN && !values.SLACK_SIGNING_SECRET) {
      context.addIssue({
        code: 'custom',
        path: ['SLACK_SIGNING_SECRET'],
        message:
          'is required with SLACK_BOT_TOKEN in HTTP mode (Basic Information → Signing Secret); for Socket Mode set SLACK_APP_TOKEN instead',
      });
    }
    if (values.SLACK_APP_TOKEN && !values.SLACK_BOT_TOKEN) {
      context.addIssue({
        code: 'custom',
        path: ['SLACK_BOT_TOKEN'],
        message: 'is required with SLACK_APP_TOKEN (OAuth & Permissions → Bot User OAuth Token)',
      });
    }
  });

/** How Slack reaches the bot: over the app's Socket Mode connection, or as signed HTTP requests. */
export type SlackTransport =
  | { readonly mode: 'socket'; readonly appToken: string }
  | { readonly mode: 'http'; readonly signingSecret: string };

/** What the Slack adapter runs with; there is none without the bot token and a transport. */
export interface SlackSettings {
  readonly botToken: string;
  /** Socket Mode when SLACK_APP_TOKEN is set, else HTTP mode on `port`. */
  readonly transport: SlackTransport;
  readonly commandPrefix: string;
  readonly apiUrl: string;
  readonly port: number;
  /** The interface HTTP mode listens on. */
  readonly host: string;
  readonly isReplyingToBots: boolean;
  /** SLACK_AGENT_SESSIONS (agent-sessions.ts). */
  readonly agentSessions: AgentSessionsMode;
}

export const slackConfig = defineEnvironmentFragment({
  schema: slackVariables,
  isService: true,
  settingsOf: (values): SlackSettings | undefined => {
    const transport: SlackTransport | undefined = values.SLACK_APP_TOKEN
      ? { mode: 'socket', appToken: values.SLACK_APP_TOKEN }
      : values.SLACK_SIGNING_SECRET
        ? { mode: 'http', signingSecret: values.SLACK_SIGNING_SECRET }
        : undefined;
    if (!values.SLACK_BOT_TOKEN || transport === undefined) return undefined;
    return {
      botToken: values.SLACK_BOT_TOKEN,
      transport,
      commandPrefix: values.SLACK_COMMAND_PREFIX,
      apiUrl: values.SLACK_API_URL,
      port: values.PORT,
      host: values.HOST,
      isReplyingToBots: values.SLACK_REPLY_TO_BOTS,
      agentSessions: values.SLACK_AGENT_SESSIONS,
    };
  },
  secretsOf: (values) => [values.SLACK_BOT_TOKEN, values.SLACK_SIGNING_SECRET, values.SLACK_APP_TOKEN],
});
