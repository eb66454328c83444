import { describeResponderContract } from '../support/responder-contract.ts';
import { describeSurfaceContract } from '../support/surface-contract.ts';
import { createEchoResponder } from './echo-responder.ts';
import { createEchoRoom, type EchoMessage, echoMessageLength } from './echo-room.ts';
import { createEchoSurface } from './echo-surface.ts';

// The third platform passes the same contracts as Discord, Slack and the terminal: a new adapter
// knows it is done when these pass, without a file of src/ changed.
const shownOf = (messages: readonly EchoMessage[], isPrivate: boolean) =>
  messages
    .filter((message) => message.isPrivate === isPrivate)
    .map((message) => ({ text: message.text, buttons: message.actions.map((action) => action.label) }));

let channelCount = 0;
const nextChannel = () => {
  channelCount += 1;
  return `echo-${channelCount}`;
};

describeSurfaceContract({
  name: 'echo',
  async open() {
    const room = createEchoRoom();
    const channel = nextChannel();
    return {
      surface: createEchoSurface({ room, channel }),
      shown: async () => shownOf(room.messages(channel), false),
    };
  },
});

describeResponderContract({
  name: 'echo',
  async open() {
    const room = createEchoRoom();
    const channel = nextChannel();
    return {
      responder: createEchoResponder({ room, channel }),
      maxMessageLength: echoMessageLength,
      shown: async () => shownOf(room.messages(channel), false),
      shownPrivately: async () => shownOf(room.messages(channel), true).map((message) => message.text),
    };
  },
});
