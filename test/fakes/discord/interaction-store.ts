/** The kinds of interaction a test can start. */
export type InteractionKind =
  | 'slash-command'
  | 'message-command'
  | 'component'
  | 'autocomplete'
  | 'modal-submit';

/** One `POST /interactions/:id/:token/callback` as the fake received it. */
export interface InteractionResponse {
  /** 4 reply, 5 deferred reply, 6 deferred update, 7 update, 8 autocomplete result, 9 modal. */
  type: number;
  /** The `data` of the callback body as sent. */
  data: Record<string, unknown> | undefined;
  atMs: number;
}

/** An interaction the fake sent and everything the bot did with it. */
export interface FakeInteraction {
  id: string;
  token: string;
  kind: InteractionKind;
  /** The slash command's name (slash commands and autocomplete). */
  commandName: string | null;
  /** The component's `custom_id` (component interactions). */
  customId: string | null;
  channelId: string;
  guildId: string | null;
  userId: string;
  createdAtMs: number;
  /** The message a clicked component is on. */
  sourceMessageId: string | null;
  /** Callbacks in the order received; a second one is refused with 40060, like Discord. */
  responses: InteractionResponse[];
  /** The message behind `@original`: the reply, the deferred reply, or the component's message. */
  originalMessageId: string | null;
  followUpMessageIds: string[];
  /** Whose install of the app it ran through. */
  installation: 'guild' | 'user';
}

/** Interactions by id and by token (webhook routes only carry the token). */
export interface InteractionStore {
  add(interaction: FakeInteraction): void;
  get(interactionId: string): FakeInteraction | undefined;
  byToken(token: string): FakeInteraction | undefined;
  clear(): void;
}

/** Creates an empty interaction store. */
export function createInteractionStore(): InteractionStore {
  const byId = new Map<string, FakeInteraction>();
  const byToken = new Map<string, FakeInteraction>();
  return {
    add(interaction) {
      byId.set(interaction.id, interaction);
      byToken.set(interaction.token, interaction);
    },
    get(interactionId) {
      return byId.get(interactionId);
    },
    byToken(token) {
      return byToken.get(token);
    },
    clear() {
      byId.clear();
      byToken.clear();
    },
  };
}
