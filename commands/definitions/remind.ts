import { describeInstant, nextRunAfter } from '../../src/scheduling/schedule-timing.ts';
import { parseWhen, whenExamples } from '../../src/scheduling/when-phrase.ts';
import { textOption } from '../command-options.ts';
import { defineCommand } from '../define-command.ts';
import { scheduleActions } from '../scheduling/schedule-text.ts';
import { timeZoneFor, timeZoneOption, timeZoneProblem } from '../scheduling/time-zone-option.ts';

/** A person's own reminder, posted in their DM with parley when it comes due. */
export const remindCommand = defineCommand({
  name: 'remind',
  description: 'Remind you in your DMs: "in 2h stretch", "tomorrow 9:00 call Ada", "every Monday 10:00 …"',
  options: {
    text: textOption({
      description: `When, then what: ${whenExamples}, then the reminder`,
      isRequired: true,
      isFreeText: true,
    }),
    tz: timeZoneOption,
  },
  runsInConversationOrder: false,
  isAnswerPrivate: () => true,
  async run({ input, conversationKey, user, responder, services }) {
    const scheduling = services.scheduling;
    if (scheduling === undefined) {
      await responder.send({ text: 'Reminders are not available here.', isPrivate: true });
      return;
    }
    const timeZone = await timeZoneFor({
      typed: input.tz,
      conversationKey,
      services,
      fallback: scheduling.timeZone,
    });
    const zoneProblem = timeZoneProblem(timeZone);
    if (zoneProblem !== undefined) {
      await responder.send({ text: `⚠ ${zoneProblem}`, isPrivate: true });
      return;
    }
    const when = parseWhen({ text: input.text, timeZone, nowMs: services.now().getTime() });
    if (!when.isValid) {
      await responder.send({ text: `⚠ ${when.problem}.`, isPrivate: true });
      return;
    }
    if (when.rest === '') {
      await responder.send({
        text: `⚠ Say what to remind you of after the time (${when.whenText}).`,
        isPrivate: true,
      });
      return;
    }
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
