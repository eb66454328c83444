import type {
  ButtonInteraction,
  ChatInputCommandInteraction,
  MessageContextMenuCommandInteraction,
  ModalSubmitInteraction,
} from 'discord.js';
import { botUserIdOf, type DiscordAdapterContext } from './adapter-context.ts';
import { createChannelFallback } from './channel-fallback.ts';
import {
  createInteractionResponder,
  type InteractionDeferral,
  type InteractionResponder,
} from './interaction-responder.ts';
import { discordConversationKey } from './message-turn.ts';

/** The longest head start the handover takes on the token's real end. */
const maxHandoverMarginMs = 60_000;

/**
 * The responder of a deferred interaction, which hands over to the channel a little before the
 * interaction's token ends (Discord: 15 minutes after the interaction was created).
 */
export function responderForInteraction({
  interaction,
  deferral,
  adapter,
}: {
  interaction:
    | ChatInputCommandInteraction
    | ButtonInteraction
    | MessageContextMenuCommandInteraction
    | ModalSubmitInteraction;
  deferral: InteractionDeferral;
  adapter: DiscordAdapterContext;
}): InteractionResponder {
  const lifetimeMs = adapter.limits.interactionTokenLifetimeMs;
  const channel = interaction.channel;
  const conversationKey = discordConversationKey({
    guildId: interaction.guildId,
    channelId: interaction.channelId ?? '',
    channel,
  });
  return createInteractionResponder({
    // A message command or a modal submit answers with the same calls (defer, edit, follow up).
    interaction: interaction as ChatInputCommandInteraction,
    deferral,
    // Known now, before this command takes its own place in the conversation's line.
    isQueued: adapter.services.engine.isBusy(conversationKey),
    logger: adapter.logger,
    maxRequestBytes: adapter.limits.requestBytes,
    tokenDeadline: {
      atMs: interaction.createdTimestamp + lifetimeMs - Math.min(maxHandoverMarginMs, lifetimeMs / 10),
      fallback: channel?.isSendable()
        ? createChannelFallback({
            channel,
            user: interaction.user,
            outbound: adapter.outbound,
            botUserId: botUserIdOf(adapter),
          })
        : undefined,
      now: () => Date.now(),
    },
  });
}
