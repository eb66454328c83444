import type { PostedMessage, Surface } from '../../src/delivery/surface.ts';
import { type EchoRoom, echoMessageLength } from './echo-room.ts';

/** Where a reply is written in the echo room: one channel, as the person who asked sees it. */
export function createEchoSurface({ room, channel }: { room: EchoRoom; channel: string }): Surface {
  return {
    limits: { maxMessageLength: echoMessageLength, minEditIntervalMs: 0 },
    address: { platform: 'echo', channel },
    async post(text, options) {
      return { id: room.bot.post(channel, { text, actions: options?.actions ?? [], isPrivate: false }) };
    },
    // The last write of a reply carries its buttons (Regenerate), as on every platform.
    async edit(message: PostedMessage, text, options) {
      room.bot.edit(message.id, {
        text,
        ...(options?.actions === undefined ? {} : { actions: options.actions }),
      });
    },
    async setActions(message, actions) {
      room.bot.edit(message.id, { actions });
    },
    async postPrivately(text) {
      room.bot.post(channel, { text, actions: [], isPrivate: true });
    },
  };
}
