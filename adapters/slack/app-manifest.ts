import { allCommands } from '../../commands/all-commands.ts';
import type { Command } from '../../commands/define-command.ts';
import { describeUsage } from '../../commands/parse-command-text.ts';
import { slackCommandName } from './command-name.ts';

/** The bot scopes parley uses, each with the reason, so a reviewer of the manifest sees why. */
export const botScopes: Readonly<Record<string, string>> = {
  'app_mentions:read': 'receive @mentions (app_mention)',
  'assistant:write': 'show "is thinking…" under a thread and stream replies natively (Agents & AI Apps)',
  'channels:history': 'follow threads it answers in public channels; /summarize; reference images',
  'chat:write': 'post and edit its replies',
  commands: 'slash commands',
  'files:read': 'read images and text files people share with it',
  'files:write': 'upload generated images and extracted data',
  'groups:history': 'the same in private channels it is invited to',
  'im:history': 'read DMs sent to it',
  'mpim:history': 'follow threads it answers in group DMs',
  'users:read': 'show people by name to the model; admins may change /model and /system',
  'usergroups:read': 'user groups as roles in access rules and role budgets (/config)',
};

/** The message events parley subscribes to, besides `app_mention`. */
const botEvents = ['app_mention', 'message.channels', 'message.groups', 'message.im', 'message.mpim'];

/**
 * The Slack app manifest: scopes, events, every command of `commands/` under the prefix, and
 * interactivity, over Socket Mode (no public URL needed), or, given `requestUrl`, over HTTP: Slack
 * then sends events, commands and button clicks to that URL (the manifest's
 * `event_subscriptions.request_url`, `interactivity.request_url` and each command's `url`, with
 * `socket_mode_enabled: false`). `slack/manifest.json` is the Socket Mode one with no prefix; a test
 * keeps the two equal.
 */
export function buildSlackManifest({
  commandPrefix = '',
  commands = allCommands,
  appName = 'parley',
  requestUrl,
}: {
  commandPrefix?: string;
  commands?: readonly Command[];
  appName?: string;
  /** HTTP mode: where parley's `POST /slack/events` is reachable, e.g. `https://bot.example.com/slack/events`. */
  requestUrl?: string;
} = {}): Record<string, unknown> {
  const viaUrl = requestUrl === undefined ? {} : { request_url: requestUrl };
  return {
    _metadata: { major_version: 2, minor_version: 1 },
    display_information: {
      name: appName,
      description: 'An AI assistant: chat, read screenshots, draw images, summarize threads.',
      background_color: '#1d2b3a',
    },
    features: {
      app_home: {
        home_tab_enabled: false,
        messages_tab_enabled: true,
        messages_tab_read_only_enabled: false,
      },
      bot_user: { display_name: appName, always_online: true },
      assistant_view: { assistant_description: 'Ask me anything; I keep the conversation of each thread.' },
      slash_commands: commands.map((command) => {
        const usageHint = usageHintOf(command);
        return {
          command: slackCommandName({ prefix: commandPrefix, command }),
          ...(requestUrl === undefined ? {} : { url: requestUrl }),
          description: command.description,
          ...(usageHint === '' ? {} : { usage_hint: usageHint }),
          should_escape: false,
        };
      }),
    },
    oauth_config: { scopes: { bot: Object.keys(botScopes).sort() } },
    settings: {
      event_subscriptions: { ...viaUrl, bot_events: botEvents },
      interactivity: { is_enabled: true, ...viaUrl },
      org_deploy_enabled: false,
      socket_mode_enabled: requestUrl === undefined,
      token_rotation_enabled: false,
    },
  };
}

// On Slack an image or file option is a switch (it takes the latest one in the channel): no value.
function usageHintOf(command: Command): string {
  return describeUsage(command.name, command.options)
    .replace(/^\/\S+\s*/, '')
    .replace(/ (image|file)\]/g, ']');
}
