import { z } from 'zod';
import { defineEnvironmentFragment } from '../../src/environment/environment-fragment.ts';
import { document, httpUrl, optionalText, section } from '../../src/environment/setting-schemas.ts';
import {
  type AtRestEncryption,
  EncryptionKeyError,
  encryptionFromEnvironment,
  parseEncryptionKey,
} from '../../src/secrets/encryption-at-rest.ts';
import type { AgentSessionsMode } from './agent-session-records.ts';

/** The variables that together turn on installing by OAuth (many workspaces) instead of one bot token. */
const oauthVariables = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;

/**
 * The variables of the Slack adapter; SLACK_BOT_TOKEN turns it on, with SLACK_APP_TOKEN (Socket Mode)
 * or SLACK_SIGNING_SECRET (HTTP mode, where every request is signed with it).
 */
const slackVariableShape = z.object(
  section('Slack', {
    SLACK_BOT_TOKEN: document(
      optionalText.pipe(z.string().startsWith('xoxb-', 'must be a bot token starting with xoxb-').optional()),
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
    SLACK_CLIENT_ID: document(optionalText, {
      description:
        'Basic Information → Client ID. With SLACK_CLIENT_SECRET and SLACK_STATE_SECRET it turns on installing parley in many workspaces by OAuth (install page /slack/install); then leave SLACK_BOT_TOKEN unset.',
    }),
    SLACK_CLIENT_SECRET: document(optionalText, {
      description: 'Basic Information → Client Secret, for installing by OAuth (with SLACK_CLIENT_ID).',
      typeText: 'secret text',
    }),
    SLACK_STATE_SECRET: document(optionalText, {
      description:
        'Any long random text (openssl rand -base64 32): signs the OAuth state, so an install cannot be forged or replayed.',
      typeText: 'secret text',
    }),
    SLACK_INSTALLATIONS_KEY: document(optionalText, {
      description:
        "Required with OAuth: the 32-byte key (64 hex digits or 44 base64 characters; openssl rand -base64 32) that seals each installation's tokens in the store (AES-256-GCM).",
      typeText: 'secret text',
    }),
    SLACK_INSTALLATIONS_KEY_OLD: document(optionalText, {
      description:
        'During a key rotation: the previous SLACK_INSTALLATIONS_KEY, read-only; each installation is sealed again with the new key when it is next read.',
      typeText: 'secret text',
    }),
    SLACK_REDIRECT_URL: document(
      optionalText.pipe(httpUrl({ example: 'https://bot.example/slack/oauth_redirect' }).optional()),
      {
        description:
          "With OAuth: the public address of the redirect, e.g. https://bot.example/slack/oauth_redirect, as listed under OAuth & Permissions → Redirect URLs. Unset: Slack uses the app's only redirect URL, and the install path listens at /slack/oauth_redirect.",
        typeText: 'https URL',
      },
    ),
    SLACK_UNINSTALL_DELETES: document(z.enum(['on', 'off']).default('off'), {
      description:
        'With OAuth: on removes everything parley keeps of a workspace (conversations, notes, settings, /config, schedules) the moment it uninstalls parley; off keeps it for HISTORY_RETENTION_DAYS, for a reinstall (docs/data.md). The installation and its tokens go at once either way; the audit trail stays.',
      typeText: 'on or off',
    }),
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
);

const slackVariables = slackVariableShape.superRefine((values, context) => {
  const oauthSet = oauthVariables.filter((name) => values[name] !== undefined);
  if (values.SLACK_BOT_TOKEN && oauthSet.length > 0) {
    // One line that says why: the two modes disagree about where the token comes from.
    context.addIssue({
      code: 'custom',
      path: ['SLACK_BOT_TOKEN'],
      message: `is set together with ${oauthSet.join(', ')}: a bot token serves one workspace, the OAuth variables install parley in many, and one process runs one of the two; unset SLACK_BOT_TOKEN or the OAuth variables`,
    });
    return;
  }
  if (oauthSet.length > 0) {
    checkOAuthVariables(values, oauthSet, context);
    return;
  }
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

type SlackValues = z.output<typeof slackVariableShape>;

/** With OAuth: all three OAuth variables, a transport, and a key of the right length to seal tokens with. */
function checkOAuthVariables(
  values: SlackValues,
  oauthSet: ReadonlyArray<(typeof oauthVariables)[number]>,
  context: z.RefinementCtx,
): void {
  for (const name of oauthVariables) {
    if (!oauthSet.includes(name)) {
      context.addIssue({
        code: 'custom',
        path: [name],
        message: `is required with ${oauthSet.join(', ')} to install parley by OAuth (Basic Information of your app)`,
      });
    }
  }
  if (!values.SLACK_APP_TOKEN && !values.SLACK_SIGNING_SECRET) {
    context.addIssue({
      code: 'custom',
      path: ['SLACK_SIGNING_SECRET'],
      message:
        'is required with OAuth in HTTP mode (Basic Information → Signing Secret); for Socket Mode set SLACK_APP_TOKEN instead',
    });
  }
  if (!values.SLACK_INSTALLATIONS_KEY) {
    context.addIssue({
      code: 'custom',
      path: ['SLACK_INSTALLATIONS_KEY'],
      message:
        "is required with OAuth: it seals the installations' tokens in the store (make one with: openssl rand -base64 32)",
    });
  }
  for (const variable of ['SLACK_INSTALLATIONS_KEY', 'SLACK_INSTALLATIONS_KEY_OLD'] as const) {
    const value = values[variable];
    if (value === undefined) continue;
    try {
      parseEncryptionKey({ value, variable });
    } catch (error) {
      if (!(error instanceof EncryptionKeyError)) throw error;
      // The error names the variable and the length it needs, never the value.
      context.addIssue({
        code: 'custom',
        path: [variable],
        message: error.message.replace(`${variable} `, ''),
      });
    }
  }
}

/** How Slack reaches the bot: over the app's Socket Mode connection, or as signed HTTP requests. */
export type SlackTransport =
  | { readonly mode: 'socket'; readonly appToken: string }
  | { readonly mode: 'http'; readonly signingSecret: string };

/**
 * Installing by OAuth in many workspaces (SLACK_CLIENT_ID …): each workspace's token comes from its
 * installation in the store, sealed with `installationsEncryption`.
 */
export interface SlackOAuthSettings {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly stateSecret: string;
  readonly installationsEncryption: AtRestEncryption;
  /** SLACK_REDIRECT_URL: the redirect's public address, when the app lists several. */
  readonly redirectUrl: string | undefined;
  /** SLACK_UNINSTALL_DELETES: an uninstalled workspace's data goes at once, not by its retention. */
  readonly isUninstallDeleting: boolean;
}

/**
 * What the Slack adapter runs with; there is none without a transport and either the bot token (one
 * workspace) or the OAuth variables (many).
 */
export interface SlackSettings {
  /** The one workspace's bot token; undefined when installing by OAuth (`oauth`). */
  readonly botToken: string | undefined;
  readonly oauth: SlackOAuthSettings | undefined;
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
    const oauth = oauthSettingsOf(values);
    if ((!values.SLACK_BOT_TOKEN && oauth === undefined) || transport === undefined) return undefined;
    return {
      botToken: values.SLACK_BOT_TOKEN,
      oauth,
      transport,
      commandPrefix: values.SLACK_COMMAND_PREFIX,
      apiUrl: values.SLACK_API_URL,
      port: values.PORT,
      host: values.HOST,
      isReplyingToBots: values.SLACK_REPLY_TO_BOTS,
      agentSessions: values.SLACK_AGENT_SESSIONS,
    };
  },
  secretsOf: (values) => [
    values.SLACK_BOT_TOKEN,
    values.SLACK_SIGNING_SECRET,
    values.SLACK_APP_TOKEN,
    values.SLACK_CLIENT_SECRET,
    values.SLACK_STATE_SECRET,
    values.SLACK_INSTALLATIONS_KEY,
    values.SLACK_INSTALLATIONS_KEY_OLD,
  ],
});

function oauthSettingsOf(values: SlackValues): SlackOAuthSettings | undefined {
  const {
    SLACK_CLIENT_ID: clientId,
    SLACK_CLIENT_SECRET: clientSecret,
    SLACK_STATE_SECRET: stateSecret,
  } = values;
  if (!clientId || !clientSecret || !stateSecret) return undefined;
  const installationsEncryption = encryptionFromEnvironment({
    environment: {
      SLACK_INSTALLATIONS_KEY: values.SLACK_INSTALLATIONS_KEY,
      SLACK_INSTALLATIONS_KEY_OLD: values.SLACK_INSTALLATIONS_KEY_OLD,
    },
    variable: 'SLACK_INSTALLATIONS_KEY',
  });
  // The schema has refused a missing key already; this keeps the type honest.
  if (installationsEncryption === undefined) return undefined;
  return {
    clientId,
    clientSecret,
    stateSecret,
    installationsEncryption,
    redirectUrl: values.SLACK_REDIRECT_URL,
    isUninstallDeleting: values.SLACK_UNINSTALL_DELETES === 'on',
  };
}
