import { type Client, Routes } from 'discord.js';
import { z } from 'zod';
import type { Action } from '../../src/delivery/card.ts';
import type { Surface } from '../../src/delivery/surface.ts';
import { noPings } from './channel-surface.ts';
import { classifyDiscordFailure } from './classify-failure.ts';
import { discordLimits } from './discord-limits.ts';
import { renderButtons } from './render-embed.ts';

/**
 * Where a Discord reply's messages are, as its surface writes it into the journal: the channel, and
 * for a reply made through an interaction the webhook that posted it (the token works 15 minutes).
 */
export const discordReplyAddressSchema = z.object({
  platform: z.literal('discord'),
  channelId: z.string(),
  interaction: z.object({ applicationId: z.string(), token: z.string() }).optional(),
});
export type DiscordReplyAddress = z.infer<typeof discordReplyAddressSchema>;

/**
 * The messages of a reply whose process died, reached again by id over REST. A message an
 * interaction posted is edited through its webhook (discord-api-docs interactions/receiving-and-
 * responding, "Edit Followup Message"); one posted in the channel, through the channel. Content and
 * buttons go in one edit each time, so the text is kept to resend with new buttons.
 */
export function createOrphanedReplySurface({
  client,
  address,
  messages,
}: {
  client: Client;
  address: DiscordReplyAddress;
  messages: ReadonlyArray<{ readonly id: string; readonly text: string }>;
}): Surface {
  const texts = new Map(messages.map((message) => [message.id, message.text]));
  const rewrite = async (messageId: string, change: { content?: string; actions?: readonly Action[] }) => {
    const body = {
      ...(change.content === undefined ? {} : { content: change.content }),
      ...(change.actions === undefined ? {} : { components: renderButtons(change.actions) }),
      allowed_mentions: noPings,
    };
    const { interaction } = address;
    if (interaction !== undefined) {
      try {
        await client.rest.patch(
          Routes.webhookMessage(interaction.applicationId, interaction.token, messageId),
          {
            body,
            auth: false,
          },
        );
        return;
      } catch {
        // The token has expired, or the message was posted in the channel once it had: try there.
      }
    }
    await client.rest.patch(Routes.channelMessage(address.channelId, messageId), { body });
  };
  // Through the interaction's webhook while its token works, else through the channel (which needs
  // Read Message History: discord-api-docs resources/message, "Get Channel Message").
  const read = async (messageId: string): Promise<unknown> => {
    const { interaction } = address;
    if (interaction !== undefined) {
      try {
        return await client.rest.get(
          Routes.webhookMessage(interaction.applicationId, interaction.token, messageId),
          { auth: false },
        );
      } catch {
        // The token has expired: try the channel.
      }
    }
    return client.rest.get(Routes.channelMessage(address.channelId, messageId));
  };
  return {
    limits: { maxMessageLength: discordLimits.messageLength, minEditIntervalMs: 0 },
    address,
    classifyFailure: classifyDiscordFailure,
    async post(text, options) {
      const posted = (await client.rest.post(Routes.channelMessages(address.channelId), {
        body: {
          content: text,
          allowed_mentions: noPings,
          components: renderButtons(options?.actions ?? []),
        },
      })) as { id: string };
      texts.set(posted.id, text);
      return { id: posted.id };
    },
    async readText(message) {
      const fetched = (await read(message.id)) as { content?: unknown };
      return typeof fetched.content === 'string' ? fetched.content : undefined;
    },
    async edit(message, text) {
      texts.set(message.id, text);
      await rewrite(message.id, { content: text });
    },
    async setActions(message, actions) {
      await rewrite(message.id, { actions });
    },
  };
}
