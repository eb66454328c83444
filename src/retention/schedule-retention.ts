import { conversationKeyOf, placeOfConversation } from '../conversation/turn.ts';
import type { Scheduler } from '../scheduling/scheduler.ts';
import type { KeptData, PersonRequest } from './kept-data.ts';

/**
 * A person's reminders and the schedules they made, for /forget and /export: each holds what they
 * typed (the reminder, the prompt) under their name. They have no age limit of their own (a
 * schedule lives until it is deleted or its last run is done); /forget deletes them, so nothing
 * runs in the person's name afterwards, and an admin's request for one server deletes only those
 * made there.
 */
export function scheduleKeptData({ scheduler }: { scheduler: Scheduler }): KeptData {
  const ownedBy = async (request: PersonRequest) => {
    // The owner index is per platform: any conversation of the platform names it.
    const anyConversation = conversationKeyOf({
      platform: request.person.platform,
      workspace: request.workspace ?? '',
      channel: '',
    });
    const records = await scheduler.listOfOwner(anyConversation, request.person.userId);
    return request.workspace === undefined
      ? records
      : records.filter(
          (record) => placeOfConversation(record.conversationKey).workspace === request.workspace,
        );
  };
  return {
    name: 'schedules',
    async forget(request) {
      let removed = 0;
      for (const record of await ownedBy(request)) if (await scheduler.remove(record.id)) removed += 1;
      return removed;
    },
    async export(request) {
      const records = await ownedBy(request);
      return records.length === 0 ? undefined : records;
    },
  };
}
