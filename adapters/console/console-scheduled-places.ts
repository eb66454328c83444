import type { ChannelMessage, CommandResponder, CommandServices } from '../../commands/define-command.ts';
import type { ScheduledPlaces } from '../../commands/scheduled-places.ts';
import type { Actor } from '../../src/access/actor.ts';

/**
 * The terminal as a place for scheduled runs: its one conversation is both the "channel" and the
 * owner's DM, so reminders and schedules print in the chat, each on a line of its own, when it is
 * their turn on the screen (after the answer to the line being typed).
 */
export function createConsoleScheduledPlaces({
  owner,
  conversationKey,
  newResponder,
  readRecentMessages,
  takeTurn,
}: {
  /** The person at the keyboard, as every typed line's Actor: the only one whose schedules run here. */
  owner: Actor;
  conversationKey: string;
  /** A fresh responder on the terminal, as each typed line gets. */
  newResponder: () => CommandResponder;
  readRecentMessages: (limit: number) => Promise<ChannelMessage[]>;
  /** Waits for the screen; the returned function gives it back. */
  takeTurn: () => Promise<() => void>;
}): ScheduledPlaces {
  return {
    platform: 'console',
    takeTurn: () => takeTurn(),
    async responderIn(key) {
      return key === conversationKey ? newResponder() : undefined;
    },
    async directMessageWith() {
      return { conversationKey, responder: newResponder() };
    },
    // The terminal's owner is who they were: the same Actor as each line they type.
    actorNow: async ({ userId }) =>
      userId === owner.id ? { isPresent: true, actor: owner } : { isPresent: false, reason: 'left' },
    readRecentMessages: (key, limit) =>
      key === conversationKey ? readRecentMessages(limit) : Promise.resolve([]),
  };
}

/** Registers the terminal's places (scheduled runs, the console, connectors); returns the undo. */
export function registerConsolePlaces(services: CommandServices, places: ScheduledPlaces): () => void {
  return services.platformPlaces.register(places);
}
