import type { ConversationKey } from '../src/conversation/turn.ts';
import type { ChannelMessage, CommandResponder } from './define-command.ts';

/**
 * How a platform lets a scheduled run answer where nobody just wrote: in a channel or thread by its
 * conversation key, or in a person's DM with parley. Each adapter registers one when it has
 * connected (`CommandServices.scheduledPlaces`); runs for a platform this process does not run wait.
 */
export interface ScheduledPlaces {
  /** The platform's name, as in conversation keys (`discord`). */
  readonly platform: string;
  /** A responder whose surface posts in that conversation; undefined when it cannot be reached. */
  responderIn(conversationKey: ConversationKey): Promise<CommandResponder | undefined>;
  /** The person's DM with parley: its conversation key and a responder posting there. */
  directMessageWith(
    userId: string,
    madeIn: ConversationKey,
  ): Promise<{ readonly conversationKey: ConversationKey; readonly responder: CommandResponder } | undefined>;
  /** The newest messages of a conversation, for commands such as /summarize. */
  readRecentMessages(conversationKey: ConversationKey, limit: number): Promise<ChannelMessage[]>;
  /**
   * Waits until a run may write in the conversation and keeps it until the returned function is
   * called: the terminal has one screen, so a run waits for the answer to the line being typed.
   * Absent: a run writes at once (a platform's messages never interleave inside one another).
   */
  takeTurn?(conversationKey: ConversationKey): Promise<() => void>;
}

/** The places of every platform this process runs, registered as they connect. */
export interface ScheduledPlacesRegistry {
  /** Registers a platform's places; the returned function takes them away (the platform stopped). */
  register(places: ScheduledPlaces): () => void;
  of(platform: string): ScheduledPlaces | undefined;
}

export function createScheduledPlacesRegistry(): ScheduledPlacesRegistry {
  const byPlatform = new Map<string, ScheduledPlaces>();
  return {
    register(places) {
      byPlatform.set(places.platform, places);
      return () => {
        if (byPlatform.get(places.platform) === places) byPlatform.delete(places.platform);
      };
    },
    of: (platform) => byPlatform.get(platform),
  };
}
