import type { PersonalTimeZones } from '../scheduling/personal-time-zones.ts';
import type { KeptData } from './kept-data.ts';

/**
 * The time zone a person set with /timezone, for /forget and /export. It is the person's own
 * setting, not something anyone said, so it has no age limit: it goes when they clear it or ask
 * parley to forget them. It is kept per platform, so an admin's request for one server (a member's
 * data-deletion request) removes it too: it would otherwise outlive the rest of their data there.
 */
export function timeZoneKeptData({ timeZones }: { timeZones: PersonalTimeZones }): KeptData {
  return {
    name: 'time-zone',
    async forget(request) {
      return (await timeZones.clear(request.person)) ? 1 : 0;
    },
    export: (request) => timeZones.of(request.person),
  };
}
