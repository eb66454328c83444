import { z } from 'zod';
import { commaList, document, section, wholeNumber } from './setting-schemas.ts';

/** An IANA zone name, or nothing: then BUDGET_TIMEZONE is used. */
const optionalTimeZone = z
  .string()
  .trim()
  .optional()
  .superRefine((value, context) => {
    if (value === undefined || value === '') return;
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
    } catch {
      context.addIssue({
        code: 'custom',
        message: 'is not a time zone; use an IANA name like UTC or Europe/Berlin',
      });
    }
  })
  .transform((value) => (value === '' ? undefined : value));

/** Reminders and schedules (/remind, /schedule, /schedules; issue 28). */
export const schedulingSettings = section('Schedules', {
  SCHEDULE_TIMEZONE: document(optionalTimeZone, {
    description:
      'The IANA time zone "tomorrow 9:00" and "every weekday 09:00" are read in when a command gives no --tz; runs keep local time across DST changes. /config overrides it per server or channel.',
    typeText: 'time zone',
    defaultText: 'BUDGET_TIMEZONE',
  }),
  SCHEDULERS: document(
    z.enum(['everyone', 'admins'], { error: 'must be everyone or admins' }).default('admins'),
    {
      description:
        'Who may /schedule prompts and commands in a channel. Admins: Discord Manage Server or Administrator; Slack workspace admins and owners. /remind is for everyone.',
    },
  ),
  SCHEDULER_ROLE_IDS: document(commaList, {
    description: 'Also allowed to /schedule in channels, by Discord role id or Slack user group id.',
    typeText: 'comma-separated ids',
  }),
  SCHEDULES_PER_CHANNEL: document(wholeNumber({ min: 0, fallback: 20 }), {
    description: 'Schedules one channel may have (reminders not counted).',
  }),
  SCHEDULES_PER_PERSON: document(wholeNumber({ min: 0, fallback: 10 }), {
    description: 'Schedules and reminders one person may have.',
  }),
  SCHEDULE_MIN_INTERVAL_MINUTES: document(wholeNumber({ min: 1, fallback: 15 }), {
    description: 'The shortest time between two runs of a repeating schedule, in minutes.',
  }),
  SCHEDULE_GRACE_MINUTES: document(wholeNumber({ min: 0, fallback: 15 }), {
    description:
      'A run missed while parley was down is done once at start when it is at most this late, in minutes; later ones are skipped with a note in the place.',
  }),
  SCHEDULE_CONCURRENCY: document(wholeNumber({ min: 1, max: 100, fallback: 4 }), {
    description:
      'Scheduled runs one process does at once; more due at the same moment wait their turn, so chat replies keep their speed.',
  }),
});
