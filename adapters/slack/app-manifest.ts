import type { webApi } from '@slack/bolt';
import { allCommands } from '../../commands/all-commands.ts';
import type { Command } from '../../commands/define-command.ts';
import { describeUsage } from '../../commands/parse-command-text.ts';
import { agentDescription, manifestSuggestedPrompts } from './agent-prompts.ts';
import { slackCommandName } from './command-name.ts';
import { messageShortcuts } from './message-shortcuts.ts';

/** The bot scopes parley uses, each with the reason, so a reviewer of the manifest sees why. */
export const botScopes: Readonly<Record<string, string>> = {
  'app_mentions:read': 'receive @mentions (app_mention)',
  'assistant:write':
    'agent view: "is thinking…" under a thread, suggested prompts, thread titles, native streaming (Agents & AI Apps)',
  'channels:history': 'follow threads it answers in public channels; /summarize; reference images',
  'chat:write': 'post and edit its replies',
  commands: 'slash commands',
  'files:read': 'read images and text files people share with it',
  'files:write': 'upload generated images and extracted data',
  'groups:history': 'the same in private channels it is invited to',
  'im:history': 'read DMs sent to it',
  'im:write': 'open its DM with a person to send them their data as a file (/export)',
  'mpim:history': 'follow threads it answers in group DMs',
  'users:read': 'show people by name to the model; admins may change /model and /system',
  'usergroups:read': 'user groups as roles in access rules and role budgets (/config)',
};

/** The message events parley subscribes to, besides `app_mention`. */
const messageEvents: ManifestEvent[] = [
  'app_mention',
  'message.channels',
  'message.groups',
  'message.im',
  'message.mpim',
];

/**
 * The AI-app events of each experience. The agent experience (manifest `agent_view`) tells the app
 * that a person opened its DM with `app_home_opened` (tab `messages`), which "replaces the
 * assistant_thread_started event", and what they view beside it with `app_context_changed`
 * ("The agent_view feature must be enabled in order to receive this event")
 * (docs.slack.dev/ai/migrating-to-agent-messaging, docs.slack.dev/reference/events/app_context_changed).
 * `agent_session_stopped` is Slack's own stop control (docs.slack.dev/reference/events/agent_session_stopped).
 * The legacy assistant experience (`assistant_view`) sends `assistant_thread_started` and
 * `assistant_thread_context_changed` instead.
 */
const experienceEvents: Record<AiExperience, readonly ManifestEvent[]> = {
  // @slack/web-api 8.2's event names lag the event's own type (@slack/types AgentSessionStoppedEvent).
  agent: ['agent_session_stopped' as ManifestEvent, 'app_context_changed', 'app_home_opened'],
  assistant: ['app_home_opened', 'assistant_thread_context_changed', 'assistant_thread_started'],
};

/**
 * `agent` declares `agent_view`, Slack's AI experience since @slack/web-api 7.19, which
 * `assistant_view` will give way to ("assistant_view will eventually be deprecated",
 * docs.slack.dev/ai/migrating-to-agent-messaging). `assistant` keeps `assistant_view` for an app
 * made before that has not moved yet; the adapter answers the events of both.
 */
export type AiExperience = 'agent' | 'assistant';

/** The manifest as @slack/web-api types it, so a misspelt or misplaced field fails the typecheck. */
export type SlackManifest = webApi.AppsManifestCreateArguments['manifest'];
type ManifestSettings = NonNullable<SlackManifest['settings']>;
type ManifestEvent = NonNullable<NonNullable<ManifestSettings['event_subscriptions']>['bot_events']>[number];
type BotScope = NonNullable<NonNullable<NonNullable<SlackManifest['oauth_config']>['scopes']>['bot']>[number];

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
  experience = 'agent',
  redirectUrl,
  isTokenRotationEnabled = false,
  isOrgDeployEnabled = false,
}: {
  /** Installing by OAuth in many workspaces: where Slack sends the installer back (`/slack/oauth_redirect`). */
  redirectUrl?: string;
  /** Installs get expiring bot tokens that parley refreshes (docs.slack.dev/authentication/using-token-rotation). */
  isTokenRotationEnabled?: boolean;
  /** An Enterprise Grid org may install the app org-wide (`is_enterprise_install`). */
  isOrgDeployEnabled?: boolean;
  /** `assistant` for an older app still on `assistant_view`; default `agent`. */
  experience?: AiExperience;
  commandPrefix?: string;
  commands?: readonly Command[];
  appName?: string;
  /** HTTP mode: where parley's `POST /slack/events` is reachable, e.g. `https://bot.example.com/slack/events`. */
  requestUrl?: string;
} = {}): SlackManifest {
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
        // The Home tab shows what parley does, the person's usage and budgets (app-home.ts).
        home_tab_enabled: true,
        messages_tab_enabled: true,
        messages_tab_read_only_enabled: false,
      },
      bot_user: { display_name: appName, always_online: true },
      ...(experience === 'agent'
        ? {
            agent_view: {
              agent_description: agentDescription,
              suggested_prompts: [...manifestSuggestedPrompts],
            },
          }
        : {
            assistant_view: {
              assistant_description: agentDescription,
              suggested_prompts: [...manifestSuggestedPrompts],
            },
          }),
      shortcuts: messageShortcuts.map(({ name, callbackId, description }) => ({
        name,
        type: 'message' as const,
        callback_id: callbackId,
        description,
      })),
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
    // @slack/web-api 8.2's scope names lag Slack's (no assistant:write), so the names are not checked.
    oauth_config: {
      ...(redirectUrl === undefined ? {} : { redirect_urls: [redirectUrl] }),
      scopes: { bot: (Object.keys(botScopes) as BotScope[]).sort() },
    },
    settings: {
      event_subscriptions: {
        ...viaUrl,
        bot_events: [
          ...messageEvents,
          ...experienceEvents[experience],
          // Installed in many workspaces: an uninstall or a revoked token removes the installation
          // (uninstall-events.ts). Both are sent "via subscription" and need no scope
          // (docs.slack.dev/reference/events/app_uninstalled, …/tokens_revoked).
          ...(redirectUrl === undefined ? [] : (['app_uninstalled', 'tokens_revoked'] as const)),
        ],
      },
      interactivity: { is_enabled: true, ...viaUrl },
      org_deploy_enabled: isOrgDeployEnabled,
      socket_mode_enabled: requestUrl === undefined,
      token_rotation_enabled: isTokenRotationEnabled,
    },
  };
}

// On Slack an image or file option is a switch (it takes the latest one in the channel): no value.
function usageHintOf(command: Command): string {
  return describeUsage(command.name, command.options)
    .replace(/^\/\S+\s*/, '')
    .replace(/ (image|file)\]/g, ']');
}
