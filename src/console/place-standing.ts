import type { AccessGate } from '../access/access-gate.ts';
import type { Capability } from '../access/access-policy.ts';
import type { Actor } from '../access/actor.ts';
import { type ConversationKey, conversationKeyOf } from '../conversation/turn.ts';
import type { ConsoleDeeds } from './console-deeds.ts';
import type { ConsolePerson, ConsolePlace } from './console-person.ts';

/** Where a person stands at a place at this request: an admin, present, or not there at all. */
export type PlaceStanding =
  | { readonly kind: 'admin'; readonly actor: Actor }
  | { readonly kind: 'member'; readonly actor: Actor }
  | { readonly kind: 'absent' };

/** The conversation key of a server or workspace as a whole (no channel): its settings and trail. */
export function placeKey(place: ConsolePlace): ConversationKey {
  return conversationKeyOf({ platform: place.platform, workspace: place.workspace, channel: '' });
}

const administer: Capability = { kind: 'administer' };

/**
 * A person's standing at a place, asked afresh at every request: the platform builds their Actor as
 * they are now (as a scheduled run's owner is built), and `authorize` — the gate of every command —
 * decides whether they administer it. A session carries who signed in, never what they may do, so
 * an admin demoted after signing in is refused at their next request. `isRecorded`: a refusal of a
 * page they asked for goes to the audit trail (once an hour, as the gate does); the place picker
 * only asks, and records nothing.
 */
export async function standingAt({
  deeds,
  access,
  person,
  place,
  isRecorded,
}: {
  deeds: ConsoleDeeds;
  access: AccessGate;
  person: ConsolePerson;
  place: ConsolePlace;
  isRecorded: boolean;
}): Promise<PlaceStanding> {
  // One person's sign-in speaks for them on their own platform only.
  if (person.platform !== place.platform) return { kind: 'absent' };
  const actor = await deeds.actorNow({
    platform: place.platform,
    workspace: place.workspace,
    userId: person.userId,
  });
  // Only a server (or workspace) parley is in, or the terminal's own, has settings and a trail.
  if (actor === undefined || (actor.context !== 'server' && actor.context !== 'terminal'))
    return { kind: 'absent' };
  const request = { actor, conversationKey: placeKey(place), capability: administer };
  const isAdmin = isRecorded ? (await access.authorize(request)).isAllowed : await access.permits(request);
  return isAdmin ? { kind: 'admin', actor } : { kind: 'member', actor };
}
