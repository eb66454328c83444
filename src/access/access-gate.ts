import type { PlaceSettingsReader } from '../administration/place-settings.ts';
import { type ConversationKey, placeOfConversation } from '../conversation/turn.ts';
import type { Logger } from '../log.ts';
import type { Deduper } from '../state/dedupe.ts';
import { type AccessRefusal, decideAccess, describeRefusal, type Requester } from './access-policy.ts';

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

/** Decides access with the rules in force at the place, and says when the person is to be told. */
export interface AccessGate {
  check(request: {
    requester: Requester;
    conversationKey: ConversationKey;
    command: string;
  }): Promise<AccessVerdict>;
}

export function createAccessGate({
  places,
  sightings,
  logger,
}: {
  places: PlaceSettingsReader;
  sightings: Deduper;
  logger: Logger;
}): AccessGate {
  return {
    async check({ requester, conversationKey, command }) {
      const place = placeOfConversation(conversationKey);
      const { access } = await places.settingsAt(place);
      const decision = decideAccess({ rules: access, requester, channelId: place.channel, command });
      if (decision.isAllowed) return decision;
      logger.info(
        { userId: requester.userId, conversationKey, command, refusal: decision.refusal },
        'request refused by the access rules',
      );
      const text = describeRefusal({ refusal: decision.refusal, command });
      const isDue = await sightings
        .isFirstSighting(
          `access-notice:${place.platform}:${place.workspace}:${requester.userId}`,
          refusalNoticeIntervalMs,
        )
        .catch((error: unknown) => {
          logger.warn({ err: error }, 'could not tell whether the person was already told; telling them');
          return true;
        });
      return { isAllowed: false, refusal: decision.refusal, notice: isDue ? text : undefined, text };
    },
  };
}
