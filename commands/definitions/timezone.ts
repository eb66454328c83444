import { describeInstant } from '../../src/scheduling/schedule-timing.ts';
import { textOption } from '../command-options.ts';
import { defineCommand } from '../define-command.ts';
import { personOf, timeZoneFor, timeZoneProblem } from '../scheduling/time-zone-option.ts';

/** Typed instead of a zone: back to the platform's or the server's. */
const clearWords = new Set(['default', 'clear', 'reset', 'none']);

/**
 * /timezone: the zone your own times (/remind) are read in. Without a zone it says which one
 * applies and where it comes from; with an IANA name it sets yours; "default" clears it. Each
 * person sets only their own: the command takes no one else. Always private.
 */
export const timezoneCommand = defineCommand({
  name: 'timezone',
  description:
    'Your time zone for /remind (IANA, e.g. Europe/Berlin; "default" to clear); alone: which applies',
  options: {
    zone: textOption({
      description: 'An IANA time zone such as Europe/Berlin, or "default"',
      isPositional: true,
      maxLength: 64,
      // Intl knows the zones it can read times in: the same list the name is checked against.
      suggest: ({ typed }) =>
        Intl.supportedValuesOf('timeZone')
          .filter((zone) => zone.toLowerCase().includes(typed.toLowerCase()))
          .slice(0, 25),
    }),
  },
  runsInConversationOrder: false,
  isAnswerPrivate: () => true,
  async run({ input, conversationKey, user, responder, services, platformTimeZone }) {
    const scheduling = services.scheduling;
    if (scheduling === undefined) {
      await responder.send({ text: 'Reminders are not available here.', isPrivate: true });
      return;
    }
    const person = personOf({ user, conversationKey });
    const now = services.now();
    if (input.zone !== undefined && clearWords.has(input.zone.toLowerCase())) {
      await scheduling.personalTimeZones.clear(person);
    } else if (input.zone !== undefined) {
      const problem = timeZoneProblem(input.zone);
      if (problem !== undefined) {
        await responder.send({ text: `⚠ ${problem}.`, isPrivate: true });
        return;
      }
      // Intl's own spelling ("europe/berlin" → "Europe/Berlin"), so lists and logs read the same.
      const canonical = new Intl.DateTimeFormat('en-US', { timeZone: input.zone }).resolvedOptions().timeZone;
      await scheduling.personalTimeZones.set(person, canonical, now);
      services.logger.info({ userId: user.id, timeZone: canonical }, 'personal time zone set');
    }
    const { timeZone, source } = await timeZoneFor({
      whose: 'person',
      typed: undefined,
      user,
      conversationKey,
      services,
      platformTimeZone,
    });
    const lead =
      input.zone === undefined
        ? 'Your time zone'
        : clearWords.has(input.zone.toLowerCase())
          ? 'Cleared. Your time zone'
          : 'Set. Your time zone';
    await responder.send({
      text: `🕘 ${lead} for /remind is ${timeZone} (${source}); it is now ${describeInstant(now.getTime(), timeZone)}. Change it with /timezone Europe/Berlin, or /timezone default.`,
      isPrivate: true,
    });
  },
});
