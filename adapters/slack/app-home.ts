import type { App, webApi } from '@slack/bolt';
import { allCommands } from '../../commands/all-commands.ts';
import { personCard } from '../../commands/definitions/usage.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import type { SlackAdapterContext } from './adapter-context.ts';
import { slackCommandName } from './command-name.ts';
import { renderCardBlocks, renderTextSections, type SlackBlock } from './render-blocks.ts';
import { slackActorOf } from './slack-actor.ts';
import { slackGuide } from './slack-guide.ts';

/**
 * The Home tab of parley: what it can do, the person's usage and budgets, and the settings they may
 * change. Published with `views.publish` each time they open it (`app_home_opened`, tab `home`), so
 * the numbers are current (docs.slack.dev/surfaces/app-home, docs.slack.dev/reference/methods/views.publish).
 */
export function registerAppHome({ app, adapter }: { app: App; adapter: SlackAdapterContext }): void {
  app.event('app_home_opened', async ({ event, context, client }) => {
    if (event.tab !== 'home') return;
    const teamId = context.teamId ?? 'unknown-team';
    try {
      const view = await buildHomeView({
        adapter,
        client,
        teamId,
        userId: event.user,
        channel: event.channel,
      });
      await client.views.publish({ user_id: event.user, view });
    } catch (error) {
      adapter.logger.warn({ err: error, userId: event.user }, 'slack: could not publish the Home tab');
    }
  });
}

async function buildHomeView({
  adapter,
  client,
  teamId,
  userId,
  channel,
}: {
  adapter: SlackAdapterContext;
  client: webApi.WebClient;
  teamId: string;
  userId: string;
  channel: string;
}): Promise<{ type: 'home'; blocks: SlackBlock[] }> {
  const { services, commandPrefix } = adapter;
  const person = await adapter.directory.lookUp({ client, userId });
  const user = slackActorOf({
    person,
    userGroups: adapter.userGroups,
    client,
    teamId,
    channel: { id: 'D', type: 'im' },
  });
  const conversationKey = conversationKeyOf({ platform: 'slack', workspace: teamId, channel });
  const usage = await personCard({
    services,
    conversationKey,
    userId,
    roleIds: user.roleIds ?? [],
    isSelf: true,
  });
  const commandLines = allCommands.map(
    (command) => `• \`${slackCommandName({ prefix: commandPrefix, command })}\` — ${command.description}`,
  );
  return {
    type: 'home',
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: 'parley', emoji: true } },
      ...renderTextSections(
        'An AI assistant: chat, read screenshots and documents, draw images, summarize threads, search the web.',
      ),
      ...renderTextSections(slackGuide.map((line) => `• ${line}`).join('\n')),
      { type: 'divider' },
      ...renderTextSections(`**What I can do**\n${commandLines.join('\n')}`),
      { type: 'divider' },
      ...renderCardBlocks({ ...usage, title: 'Your usage and budgets' }),
      { type: 'divider' },
      ...renderTextSections(settingsYouMayChange(services.mayChangeSettings(user), user.isAdmin)),
    ],
  };
}

function settingsYouMayChange(mayChangeSettings: boolean, isAdmin: boolean): string {
  const lines = [
    '**Settings you may change**',
    '• `/reset` forgets a conversation you are in, with its settings.',
  ];
  lines.push(
    mayChangeSettings
      ? '• `/model` and `/system` set a conversation’s model and system prompt (in a thread: mention me followed by `model …` or `system …`).'
      : '• A conversation’s model and system prompt are set by admins; `/model` and `/system` show them.',
  );
  lines.push(
    isAdmin
      ? '• `/config` changes budgets, access and channel settings (reply mode, model, system prompt) for the workspace or a channel.'
      : '• Budgets, access and channel settings are set by workspace admins with `/config`.',
  );
  return lines.join('\n');
}
