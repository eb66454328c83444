import { describeInstant } from '../../src/scheduling/schedule-timing.ts';
import { whenExamples } from '../../src/scheduling/when-phrase.ts';
import { textOption } from '../command-options.ts';
import { defineCommand } from '../define-command.ts';
import { commandOfText } from '../scheduling/command-of-text.ts';
import { isSchedulable } from '../scheduling/schedulable-commands.ts';
import { scheduleActions } from '../scheduling/schedule-text.ts';
import { readWhenAndWhat, timeZoneOption } from '../scheduling/time-zone-option.ts';

/** A prompt or command run in this channel at set times, answered here like any message. */
export const scheduleCommand = defineCommand({
  name: 'schedule',
  description:
    'Run a prompt or command here at set times: "every weekday 09:00 /summarize", "every Friday 17:00 …"',
  options: {
    text: textOption({
      description: `When, then the prompt or /command: ${whenExamples}`,
      isRequired: true,
      isFreeText: true,
    }),
    tz: timeZoneOption('place'),
  },
  runsInConversationOrder: false,
  async run(context) {
    const { input, conversationKey, user, responder, services } = context;
    const scheduling = services.scheduling;
    if (scheduling === undefined) {
      await responder.send({ text: 'Schedules are not available here.', isPrivate: true });
      return;
    }
    if (user.context !== 'server' && user.context !== 'terminal') {
      await responder.send({
        text: 'Schedules run in a server channel; for yourself, use /remind.',
        isPrivate: true,
      });
      return;
    }
    if (!scheduling.scheduler.mayScheduleInPlace(user)) {
      await responder.send({
        text: 'Only server admins (and the roles the owner allows) can schedule prompts in a channel. /remind works for everyone.',
        isPrivate: true,
      });
      return;
    }
    const read = await readWhenAndWhat({
      context,
      text: input.text,
      typedZone: input.tz,
      whose: 'place',
      missingWhat: 'what to run',
    });
    if (!read.isRead) {
      await responder.send({ text: `⚠ ${read.problem}`, isPrivate: true });
      return;
    }
    const { timeZone, when } = read;
    const command = commandOfText(when.rest);
    if (command !== undefined && !isSchedulable(services.findCommand(command.name))) {
      await responder.send({ text: `⚠ /${command.name} cannot be scheduled.`, isPrivate: true });
      return;
    }
    const created = await scheduling.scheduler.create({
      kind: 'place',
      conversationKey,
      owner: user,
      what: when.rest,
      whenText: when.whenText,
      timing: when.timing,
      timeZone,
    });
    if ('problem' in created) {
      await responder.send({ text: `⚠ Not scheduled: ${created.problem}.`, isPrivate: true });
      return;
    }
    const { record } = created;
    await responder.send({
      text: `🕘 Scheduled “${record.what}” here, ${record.whenText}${record.nextRunAtMs === undefined ? '' : `; first run ${describeInstant(record.nextRunAtMs, timeZone)}`}. Each run is paid from ${user.name}’s budget.`,
      actions: scheduleActions(record),
    });
  },
});
