import type { PlaceSettings, PlaceSettingsReader } from '../administration/place-settings.ts';
import type { AuditLog } from '../audit/audit-log.ts';
import { type ConversationKey, placeOfConversation } from '../conversation/turn.ts';
import type { Logger } from '../log.ts';
import { recordRefusal } from '../operations/metrics.ts';
import type { Deduper } from '../state/dedupe.ts';
import { traceAccess } from '../tracing/turn-spans.ts';
import { type AccessRefusal, type Capability, decideAccess, describeRefusal } from './access-policy.ts';
import type { Actor } from './actor.ts';

/** How long a refused person is not told again: one short notice an hour, never a stream of them. */
export const refusalNoticeIntervalMs = 60 * 60_000;

export type AccessVerdict =
  | { readonly isAllowed: true }
  | {
      readonly isAllowed: false;
      readonly refusal: AccessRefusal;
      /** The private notice to give, or undefined when this person was told within the hour. */
      readonly notice: string | undefined;
      /** The notice's words whether or not it is due (a command must answer something anyway). */
      readonly text: string;
    };

/**
 * The one access decision of every entry point: whether this actor may do this here, with the rules
 * in force at the place, and whether the person is to be told (once an hour) or was told already.
 */
export interface AccessGate {
  authorize(request: {
    actor: Actor;
    conversationKey: ConversationKey;
    capability: Capability;
    /** The place's rules as the turn read them at its door; absent, they are read now. */
    settings?: Pick<PlaceSettings, 'access'>;
  }): Promise<AccessVerdict>;
  /**
   * The same decision, asked for a deed the model does on the person's turn (a memory tool writing
   * the place's notes): the rules in force now, the refusal logged, and nobody told, since the
   * model hears why its call was not run.
   */
  permits(request: {
    actor: Actor;
    conversationKey: ConversationKey;
    capability: Capability;
  }): Promise<boolean>;
}

export function createAccessGate({
  places,
  sightings,
  audit,
  logger,
}: {
  places: PlaceSettingsReader;
  sightings: Deduper;
  /** Where refusals are recorded: once per person an hour, with the notice. */
  audit?: AuditLog;
  logger: Logger;
}): AccessGate {
  const decide = async ({
    actor,
    conversationKey,
    capability,
    settings,
  }: {
    actor: Actor;
    conversationKey: ConversationKey;
    capability: Capability;
    settings?: Pick<PlaceSettings, 'access'>;
  }) => {
    const place = placeOfConversation(conversationKey);
    const { access } = settings ?? (await places.settingsAt(place));
    const decision = decideAccess({ rules: access, actor, channelId: place.channel, capability });
    if (!decision.isAllowed) {
      logger.info(
        { userId: actor.id, context: actor.context, conversationKey, capability, refusal: decision.refusal },
        'request refused by the access rules',
      );
    }
    return decision;
  };
  return {
    async permits(request) {
      return (await decide(request)).isAllowed;
    },
    // Each decision is an `authorize` span of the turn, command or press that asked.
    authorize: (request) => traceAccess(() => authorize(request)),
  };

  async function authorize({
    actor,
    conversationKey,
    capability,
    settings,
  }: Parameters<AccessGate['authorize']>[0]): Promise<AccessVerdict> {
    const decision = await decide({ actor, conversationKey, capability, ...(settings ? { settings } : {}) });
    if (decision.isAllowed) return decision;
    recordRefusal({ kind: 'access' });
    const place = placeOfConversation(conversationKey);
    const text = describeRefusal({ refusal: decision.refusal, capability });
    const isDue = await sightings
      .isFirstSighting(
        `access-notice:${place.platform}:${place.workspace}:${actor.id}`,
        refusalNoticeIntervalMs,
      )
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'could not tell whether the person was already told; telling them');
        return true;
      });
    if (isDue) {
      await audit?.record({
        platform: place.platform,
        workspace: place.workspace,
        channel: place.channel,
        actor: { id: actor.id, name: actor.name },
        kind: 'access-refused',
        what: `${describeCapability(capability)} refused: ${decision.refusal} (recorded once an hour)`,
        result: 'refused',
      });
    }
    return { isAllowed: false, refusal: decision.refusal, notice: isDue ? text : undefined, text };
  }
}

/** A capability as the audit trail names it: `/usage`, `administer`, `write-shared place-memory`. */
function describeCapability(capability: Capability): string {
  switch (capability.kind) {
    case 'command':
      return `/${capability.name}`;
    case 'write-shared':
      return `write-shared ${capability.thing}`;
    default:
      return capability.kind;
  }
}
