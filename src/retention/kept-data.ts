import type { ConversationKey, StoredTurn } from '../conversation/turn.ts';

/** A person as parley knows them: their id on one platform. */
export interface Person {
  readonly platform: string;
  readonly userId: string;
}

/** What the sweep hands each kind of kept data: the time, and how long each place keeps things. */
export interface SweepContext {
  readonly nowMs: number;
  /**
   * What of a conversation is older than this (ms since the epoch) goes; undefined when its place
   * keeps things with no time limit (HISTORY_RETENTION_DAYS=off there).
   */
  cutoffMsFor(conversationKey: ConversationKey): Promise<number | undefined>;
  /**
   * For what places share (content kept once by hash): the earliest cutoff any place asks for, so
   * the strictest owner is obeyed; undefined when no place has a time limit.
   */
  readonly sharedCutoffMs: number | undefined;
}

/** Whose data, where, for /forget and /export. */
export interface PersonRequest {
  readonly person: Person;
  /** Only this server or workspace (an admin's request); undefined: everywhere on the platform. */
  readonly workspace: string | undefined;
  /** The conversations the person wrote in (the people index), already limited to `workspace`. */
  readonly conversationKeys: readonly ConversationKey[];
  readonly nowMs: number;
}

/** A /forget request once the person's turns are gone from history: their documents go with them. */
export interface ForgetRequest extends PersonRequest {
  readonly forgottenTurns: readonly StoredTurn[];
}

/**
 * One kind of data parley keeps, and how it goes: by age (the retention sweep), by person
 * (/forget), and what of it is the person's (/export). Each store of the bot registers one, so
 * the sweep, /forget and /export reach everything without knowing any of it.
 */
export interface KeptData {
  /** Names it in the sweep's log line and in the export (`history`, `documents`, `memory`…). */
  readonly name: string;
  /** Removes what is older than the cutoffs; resolves with how many entries went. */
  sweep?(context: SweepContext): Promise<number>;
  /** Removes what is the person's; resolves with how many entries went. */
  forget?(request: ForgetRequest): Promise<number>;
  /** What of it is the person's, as plain JSON for the export file; undefined: nothing. */
  export?(request: PersonRequest): Promise<unknown>;
}

/** The list of kept data the sweep, /forget and /export walk. */
export interface KeptDataRegistry {
  /** Adds one kind; the function returned takes it out again. */
  register(kept: KeptData): () => void;
  list(): readonly KeptData[];
}

export function createKeptDataRegistry(): KeptDataRegistry {
  const kinds: KeptData[] = [];
  return {
    register(kept) {
      if (kinds.some((known) => known.name === kept.name)) {
        throw new Error(`kept data "${kept.name}" is registered twice`);
      }
      kinds.push(kept);
      return () => {
        const index = kinds.indexOf(kept);
        if (index >= 0) kinds.splice(index, 1);
      };
    },
    list: () => [...kinds],
  };
}
