import type { Action } from '../../src/delivery/card.ts';

/**
 * The "echo" platform's whole world: one in-process room of channels where people write, run
 * commands and press buttons, and where the bot's messages show. It plays the part a fake Discord or
 * Slack plays for the real adapters, without a wire protocol: the point of the echo platform is the
 * seam it plugs into, not a network.
 */
export interface EchoRoom {
  /** A person writes in a channel. */
  say(event: { channel: string; userId: string; text: string }): void;
  /** A person runs `/name text` in a channel. */
  runCommand(event: { channel: string; userId: string; name: string; text: string }): void;
  /** A person presses a button under one of the bot's messages. */
  press(event: { channel: string; userId: string; messageId: string; actionId: string }): void;
  /** Everything the bot shows in a channel, oldest first. */
  messages(channel: string): readonly EchoMessage[];
  /** Resolves with the first value `read` returns that is not undefined, checking as the room changes. */
  waitFor<Value>(read: () => Value | undefined, timeoutMs?: number): Promise<Value>;
  /** The adapter's side: events as they happen; returns a function that stops listening. */
  listen(listener: (event: EchoEvent) => void): () => void;
  /** The adapter's side: the bot posts, edits and privately tells. */
  readonly bot: {
    post(channel: string, message: { text: string; actions: readonly Action[]; isPrivate: boolean }): string;
    edit(messageId: string, change: { text?: string; actions?: readonly Action[] }): void;
  };
}

export type EchoEvent =
  | { readonly type: 'message'; readonly channel: string; readonly userId: string; readonly text: string }
  | {
      readonly type: 'command';
      readonly channel: string;
      readonly userId: string;
      readonly name: string;
      readonly text: string;
    }
  | {
      readonly type: 'press';
      readonly channel: string;
      readonly userId: string;
      readonly messageId: string;
      readonly actionId: string;
    };

export interface EchoMessage {
  readonly id: string;
  readonly text: string;
  readonly actions: readonly Action[];
  /** Shown only to the person it answers (an error, /help). */
  readonly isPrivate: boolean;
  /** How often the bot changed it after posting. */
  readonly editCount: number;
}

/**
 * The echo platform's own rule, as Discord's 2,000 characters are Discord's: a message longer than
 * this is refused, so an adapter must split long text as it would on a real platform.
 */
export const echoMessageLength = 2_000;

function refuseTooLong(text: string | undefined): void {
  if (text !== undefined && text.length > echoMessageLength) {
    throw new Error(`echo room: a message holds at most ${echoMessageLength} characters, got ${text.length}`);
  }
}

export function createEchoRoom(): EchoRoom {
  const messagesByChannel = new Map<string, EchoMessage[]>();
  const channelOfMessage = new Map<string, string>();
  const listeners = new Set<(event: EchoEvent) => void>();
  const watchers = new Set<() => void>();
  let nextId = 1;
  const changed = () => {
    for (const watch of [...watchers]) watch();
  };
  const emit = (event: EchoEvent) => {
    // Like a network, the event reaches the bot after the caller has moved on.
    setImmediate(() => {
      for (const listener of listeners) listener(event);
    });
  };
  return {
    say: (event) => emit({ type: 'message', ...event }),
    runCommand: (event) => emit({ type: 'command', ...event }),
    press: (event) => emit({ type: 'press', ...event }),
    messages: (channel) => messagesByChannel.get(channel) ?? [],
    waitFor(read, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const value = read();
          if (value === undefined) return;
          watchers.delete(check);
          clearTimeout(timer);
          resolve(value);
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`echo room: waited ${timeoutMs} ms for the condition`));
        }, timeoutMs);
        watchers.add(check);
        check();
      });
    },
    listen(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    bot: {
      post(channel, message) {
        refuseTooLong(message.text);
        const id = `echo-${nextId++}`;
        const messages = messagesByChannel.get(channel) ?? [];
        messages.push({ id, ...message, editCount: 0 });
        messagesByChannel.set(channel, messages);
        channelOfMessage.set(id, channel);
        changed();
        return id;
      },
      edit(messageId, change) {
        refuseTooLong(change.text);
        const messages = messagesByChannel.get(channelOfMessage.get(messageId) ?? '') ?? [];
        const index = messages.findIndex((message) => message.id === messageId);
        const message = messages[index];
        if (!message) throw new Error(`echo room: no message ${messageId}`);
        messages[index] = { ...message, ...change, editCount: message.editCount + 1 };
        changed();
      },
    },
  };
}
