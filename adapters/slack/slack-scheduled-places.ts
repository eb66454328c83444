import type { webApi } from '@slack/bolt';
import type { CommandServices } from '../../commands/define-command.ts';
import type { ScheduledPlaces } from '../../commands/scheduled-places.ts';
import { createSurfaceResponder } from '../../commands/surface-responder.ts';
import { conversationKeyOf, placeOfConversation } from '../../src/conversation/turn.ts';
import type { SlackAdapterContext } from './adapter-context.ts';
import { withFeedbackButtons } from './feedback-surface.ts';
import { readChannelHistory } from './read-channel-history.ts';
import { createReplySurface } from './reply-surface.ts';
import { slackActorNow } from './slack-actor-now.ts';

/** The team, channel and thread a Slack conversation key names. */
function addressOf(conversationKey: string) {
  const [, teamId, channel, threadTs] = conversationKey.split(':');
  return teamId === undefined || channel === undefined ? undefined : { teamId, channel, threadTs };
}

/**
 * The Web API client and bot user of a workspace: with one bot token, the app's own; with OAuth
 * installs, one made with that workspace's (or its org's) installation, read when the run needs it.
 */
export type SlackWorkspaceClients = (
  teamId: string,
) => Promise<{ readonly client: webApi.WebClient; readonly botUserId: string | undefined }>;

/**
 * Slack places for scheduled runs. A channel (or a thread, by its `ts`) is answered through the same
 * surface as a live reply: chat.postMessage, then chat.update at the reply's pace, every call in the
 * bot's outbound queue, buttons (and 👍/👎) on the final write. A person's DM with the app is opened
 * by conversations.open, which returns the existing one (docs.slack.dev reference/methods/
 * conversations.open). Commands read the channel's history as the slash command does.
 */
export function createSlackScheduledPlaces({
  workspaceClients,
  adapter,
}: {
  workspaceClients: SlackWorkspaceClients;
  adapter: Pick<SlackAdapterContext, 'delivery' | 'directory' | 'userGroups' | 'logger'>;
}): ScheduledPlaces {
  const surfaceFor = async ({
    teamId,
    channel,
    threadTs,
    recipientUserId,
  }: {
    teamId: string;
    channel: string;
    threadTs: string | undefined;
    recipientUserId: string | undefined;
  }) => {
    const { client } = await workspaceClients(teamId);
    return createReplySurface({
      place: { client, teamId, channel, threadTs, recipientUserId },
      context: adapter.delivery,
    });
  };
  return {
    platform: 'slack',
    async responderIn(conversationKey) {
      const address = addressOf(conversationKey);
      if (address === undefined) return undefined;
      // Nobody asked: the reply names no recipient, so no native stream and no private notice.
      return createSurfaceResponder(
        withFeedbackButtons(await surfaceFor({ ...address, recipientUserId: undefined })),
      );
    },
    async directMessageWith(userId, madeIn) {
      const { workspace: teamId } = placeOfConversation(madeIn);
      const { client } = await workspaceClients(teamId);
      const opened = await client.conversations.open({ users: userId });
      const channel = opened.channel?.id;
      if (channel === undefined) return undefined;
      return {
        conversationKey: conversationKeyOf({ platform: 'slack', workspace: teamId, channel }),
        responder: createSurfaceResponder(
          await surfaceFor({ teamId, channel, threadTs: undefined, recipientUserId: userId }),
        ),
      };
    },
    actorNow: async ({ userId, conversationKey }) =>
      slackActorNow({
        client: (await workspaceClients(placeOfConversation(conversationKey).workspace)).client,
        directory: adapter.directory,
        userGroups: adapter.userGroups,
        userId,
        conversationKey,
      }),
    async readRecentMessages(conversationKey, limit) {
      const address = addressOf(conversationKey);
      if (address === undefined) return [];
      const { client, botUserId } = await workspaceClients(address.teamId);
      return readChannelHistory({
        client,
        channel: address.channel,
        threadTs: address.threadTs,
        limit,
        botUserId,
        directory: adapter.directory,
        // Nobody waits for a note here; the log keeps why fewer messages were read.
        onNote: (note) =>
          adapter.logger.info({ conversationKey, note }, 'slack: a scheduled read was capped'),
      });
    },
  };
}

/** Registers Slack's places (scheduled runs, the console, connectors); returns the undo. */
export function registerSlackPlaces({
  workspaceClients,
  adapter,
  services,
}: {
  workspaceClients: SlackWorkspaceClients;
  adapter: Pick<SlackAdapterContext, 'delivery' | 'directory' | 'userGroups' | 'logger'>;
  services: CommandServices;
}): () => void {
  return services.platformPlaces.register(createSlackScheduledPlaces({ workspaceClients, adapter }));
}
