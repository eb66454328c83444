import type { ChannelMessage, CommandResponder, CommandServices } from '../../commands/define-command.ts';
import type { ScheduledPlaces } from '../../commands/scheduled-places.ts';

/**
 * The terminal as a place for scheduled runs: its one conversation is both the "channel" and the
 * owner's DM, so reminders and schedules print in the chat, each on a line of its own.
 */
export function createConsoleScheduledPlaces({
  conversationKey,
  newResponder,
  readRecentMessages,
}: {
  conversationKey: string;
  /** A fresh responder on the terminal, as each typed line gets. */
  newResponder: () => CommandResponder;
  readRecentMessages: (limit: number) => Promise<ChannelMessage[]>;
}): ScheduledPlaces {
  return {
    platform: 'console',
    async responderIn(key) {
      return key === conversationKey ? newResponder() : undefined;
    },
    async directMessageWith() {
      return { conversationKey, responder: newResponder() };
    },
    readRecentMessages: (key, limit) =>
      key === conversationKey ? readRecentMessages(limit) : Promise.resolve([]),
  };
}

/** Registers the terminal's places with the scheduler, where the process runs one; returns the undo. */
export function registerConsolePlaces(services: CommandServices, places: ScheduledPlaces): () => void {
  return services.scheduling?.places.register(places) ?? (() => {});
}
