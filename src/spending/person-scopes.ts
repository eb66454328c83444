import { type ConversationKey, type ConversationPlace, placeOfConversation } from '../conversation/turn.ts';

/**
 * Who "the same person" is, for the counters of personal budgets. By default a person is their user
 * id, counted once wherever they talk. A platform may say otherwise for some places: on Slack, a
 * workspace of an Enterprise Grid org installed org-wide counts a person by the org, because an
 * org's user ids are one person across all its workspaces (docs.slack.dev reference/methods/
 * migration.exchange: "global user IDs"), so their spend in one workspace of the org counts in the
 * others, and never joins the spend of an id in a workspace outside the org.
 */
export interface PersonScopes {
  /** A platform's answer for its places; undefined from it means the default. Returns the undo. */
  register(platform: string, resolver: PersonScopeResolver): () => void;
  /** The scope of a person's counters where they talk now, e.g. `user:U1`, `user:slack:E1:W1`. */
  scopeOf(person: { readonly userId: string; readonly conversationKey: ConversationKey }): Promise<string>;
  /** The same, by place rather than conversation (forgetting a person in a workspace). */
  scopeAt(person: {
    readonly userId: string;
    readonly place: Pick<ConversationPlace, 'platform' | 'workspace'>;
  }): Promise<string>;
}

/** A group a place counts people under (an org id), or undefined for "the person alone". */
export type PersonScopeResolver = (
  place: Pick<ConversationPlace, 'platform' | 'workspace'>,
) => Promise<string | undefined>;

export function createPersonScopes(): PersonScopes {
  const resolvers = new Map<string, PersonScopeResolver>();
  const scopeAt: PersonScopes['scopeAt'] = async ({ userId, place }) => {
    const group = await resolvers.get(place.platform)?.(place);
    return group === undefined ? `user:${userId}` : `user:${place.platform}:${group}:${userId}`;
  };
  return {
    register(platform, resolver) {
      resolvers.set(platform, resolver);
      return () => {
        if (resolvers.get(platform) === resolver) resolvers.delete(platform);
      };
    },
    scopeOf: ({ userId, conversationKey }) =>
      scopeAt({ userId, place: placeOfConversation(conversationKey) }),
    scopeAt,
  };
}
