import { defineAction } from '../define-action.ts';
import { rateReply } from '../rate-reply.ts';
import { loadPressedPayload } from './pressed-payload.ts';

/** 👍 (index 1) or 👎 (index 0) under a finished chat reply: kept, logged and counted. */
export const rateReplyAction = defineAction({
  verb: 'chat.feedback',
  // The rating changes nothing on screen but the control itself, which the platform draws.
  acknowledgement: 'in-place',
  async run(context) {
    const payload = await loadPressedPayload({ ...context, kind: 'chat' });
    if (payload) await rateReply({ ...context, payload, isPositive: context.pressed.index === 1 });
  },
});
