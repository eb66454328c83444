import { defineCommand } from '../define-command.ts';
import { describeSchedule, mayChangeSchedule, scheduleActions } from '../scheduling/schedule-text.ts';

/** Schedules listed with buttons, at most this many; the rest are listed as lines. */
const maxWithButtons = 10;

/** This channel's schedules and your reminders, each with Pause or Resume and Delete. */
export const schedulesCommand = defineCommand({
  name: 'schedules',
  description: 'List this channel’s schedules and your reminders, to pause, resume or delete them',
  options: {},
  runsInConversationOrder: false,
  isAnswerPrivate: () => true,
  async run({ conversationKey, user, responder, services }) {
    const scheduling = services.scheduling;
    if (scheduling === undefined) {
      await responder.send({ text: 'Schedules are not available here.', isPrivate: true });
      return;
    }
    const [inPlace, own] = await Promise.all([
      scheduling.scheduler.listInPlace(conversationKey),
      scheduling.scheduler.listOfOwner(conversationKey, user.id),
    ]);
    const seen = new Set<string>();
    const records = [...inPlace, ...own].filter((record) => !seen.has(record.id) && seen.add(record.id));
    if (records.length === 0) {
      await responder.send({
        text: 'No schedules here and no reminders of yours. Try `/remind in 2h stretch` or `/schedule every weekday 09:00 /summarize`.',
        isPrivate: true,
      });
      return;
    }
    const limits = scheduling.scheduler.limits;
    await responder.send({
      text: `${inPlace.length} of ${limits.perPlace} schedules in this channel; ${own.length} of ${limits.perPerson} are yours. Runs by ${scheduling.scheduler.engineName}.`,
      isPrivate: true,
    });
    for (const [index, record] of records.entries()) {
      const canChange = mayChangeSchedule(user, record);
      await responder.send({
        text: describeSchedule(record),
        ...(canChange && index < maxWithButtons ? { actions: scheduleActions(record) } : {}),
        isPrivate: true,
      });
    }
  },
});
