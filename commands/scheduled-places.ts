import type { Actor } from '../src/access/actor.ts';
import type { ConversationKey } from '../src/conversation/turn.ts';
import type { ChannelMessage, CommandResponder } from './command-responder.ts';

/**
 * Why the platform says a person cannot act somewhere now, before any access rule is asked:
 * - `left`: no longer a member of the server (left, kicked or banned) or unknown to the platform;
 * - `deactivated`: their account is deactivated (Slack);
 * - `timed-out`: a moderator timed them out in that server (Discord);
 * - `cannot-post-here`: they may no longer see or post in that channel;
 * - `parley-cannot-post-here`: parley may no longer post in that channel.
 */
export type AbsenceReason =
  | 'left'
  | 'deactivated'
  | 'timed-out'
  | 'cannot-post-here'
  | 'parley-cannot-post-here';

/** A person as the platform shows them now: their Actor, or why they cannot act there. */
export type ActorNow =
  | { readonly isPresent: true; readonly actor: Actor }
  | { readonly isPresent: false; readonly reason: AbsenceReason };

/**
 * How a platform lets a scheduled run answer where nobody just wrote: in a channel or thread by its
 * conversation key, or in a person's DM with parley. Each adapter registers one when it has
 * connected (`CommandServices.platformPlaces`); runs for a platform this process does not run wait.
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
  /**
   * The person as the platform knows them now, built by the same builder as its live entry points
   * (roles, admin from real permissions, still a member, not timed out, may post there): deferred
   * work keeps who and where, never a snapshot of authority. `postsThere`: the run writes in that
   * conversation (a channel schedule), so parley must be able to post there too. `atMs`: the run's
   * time, by the injected clock (a timeout ends at a time). Rejects when the platform cannot answer
   * (a network error): the run is tried again.
   */
  actorNow(request: {
    userId: string;
    conversationKey: ConversationKey;
    postsThere: boolean;
    atMs: number;
  }): Promise<ActorNow>;
  /**
   * Whether parley is in this server or workspace now, answered from what the platform told it
   * (no request): the owner's console lists only such places. Absent: every place may be.
   */
  isPresentIn?(workspace: string): boolean;
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
