import { type ActionContext, defineAction } from '../define-action.ts';
import { describeSchedule, mayChangeSchedule, scheduleActions } from '../scheduling/schedule-text.ts';

/** Finds the schedule a button names and checks that the presser may change it. */
async function pressedSchedule({ pressed, user, responder, services }: ActionContext) {
  const scheduler = services.scheduling?.scheduler;
  const record = await scheduler?.get(pressed.token);
  if (scheduler === undefined || record === undefined) {
    await responder.send({ text: 'That schedule no longer exists.', isPrivate: true });
    return undefined;
  }
  if (!mayChangeSchedule(user, record)) {
    await responder.send({
      text: 'Only its owner or a server admin can change this schedule.',
      isPrivate: true,
    });
    return undefined;
  }
  return { scheduler, record };
}

export const pauseScheduleAction = defineAction({
  verb: 'schedule.pause',
  acknowledgement: 'new-answer',
  async run(context) {
    const found = await pressedSchedule(context);
    if (found === undefined) return;
    const paused = await found.scheduler.pause(found.record.id);
    if (paused === undefined) return;
    await context.responder.send({
      text: describeSchedule(paused),
      actions: scheduleActions(paused),
      isPrivate: true,
    });
  },
});

export const resumeScheduleAction = defineAction({
  verb: 'schedule.resume',
  acknowledgement: 'new-answer',
  async run(context) {
    const found = await pressedSchedule(context);
    if (found === undefined) return;
    const resumed = await found.scheduler.resume(found.record.id);
    if (resumed === undefined) return;
    if ('problem' in resumed) {
      await context.responder.send({ text: `⚠ Not resumed: ${resumed.problem}.`, isPrivate: true });
      return;
    }
    await context.responder.send({
      text: describeSchedule(resumed),
      actions: scheduleActions(resumed),
      isPrivate: true,
    });
  },
});

export const deleteScheduleAction = defineAction({
  verb: 'schedule.delete',
  acknowledgement: 'new-answer',
  async run(context) {
    const found = await pressedSchedule(context);
    if (found === undefined) return;
    await found.scheduler.remove(found.record.id);
    await context.responder.send({ text: `🗑 Deleted “${found.record.what}”.`, isPrivate: true });
  },
});
