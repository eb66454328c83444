import { describeInstant, nextRunAfter } from '../../src/scheduling/schedule-timing.ts';
import { whenExamples } from '../../src/scheduling/when-phrase.ts';
import { textOption } from '../command-options.ts';
import { defineCommand } from '../define-command.ts';
import { scheduleActions } from '../scheduling/schedule-text.ts';
import { readWhenAndWhat, timeZoneOption } from '../scheduling/time-zone-option.ts';

/** A person's own reminder, posted in their DM with parley when it comes due. */
export const remindCommand = defineCommand({
  name: 'remind',
  description: 'Remind you in your DMs, in your /timezone: "in 2h stretch", "tomorrow 9:00 call Ada", …',
  options: {
    text: textOption({
      description: `When, then what: ${whenExamples}, then the reminder`,
      isRequired: true,
      isFreeText: true,
    }),
    tz: timeZoneOption('person'),
  },
  runsInConversationOrder: false,
  isAnswerPrivate: () => true,
  async run(context) {
    const { input, conversationKey, user, responder, services } = context;
    const scheduling = services.scheduling;
    if (scheduling === undefined) {
      await responder.send({ text: 'Reminders are not available here.', isPrivate: true });
      return;
    }
    const read = await readWhenAndWhat({
      context,
      text: input.text,
      typedZone: input.tz,
      whose: 'person',
      missingWhat: 'what to remind you of',
    });
    if (!read.isRead) {
      await responder.send({ text: `⚠ ${read.problem}`, isPrivate: true });
      return;
    }
    const { timeZone, when } = read;
    const created = await scheduling.scheduler.create({
      kind: 'reminder',
      conversationKey,
      owner: user,
      what: when.rest,
      whenText: when.whenText,
      timing: when.timing,
      timeZone,
    });
    if ('problem' in created) {
      await responder.send({ text: `⚠ Not set: ${created.problem}.`, isPrivate: true });
      return;
    }
    const { record } = created;
    const first =
      record.nextRunAtMs ??
      nextRunAfter({ timing: record.timing, timeZone, afterMs: services.now().getTime() });
    await responder.send({
      text: `⏰ I will remind you “${record.what}” ${first === undefined ? '' : `on ${describeInstant(first, timeZone)}`}${record.timing.kind === 'cron' ? `, then ${record.whenText}` : ''}, ${user.context === 'terminal' ? 'here' : 'in your DMs'}.`,
      actions: scheduleActions(record),
      isPrivate: true,
    });
  },
});
