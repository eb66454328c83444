import {
  type CoveredCall,
  type GatewayCallWork,
  SpendHold,
  SpendLimitReachedError,
} from '../spending/spend-hold.ts';
import { GatewayError } from './gateway-error.ts';

/** What a person hears when the budgets could not be read to cover a further call. */
const budgetsUnreadableMessage =
  'I cannot check the budget right now, so I did not send this to the model. Please try again in a moment.';

/**
 * Every request the gateway client sends is covered by the caller's spend hold first, sized to what
 * is about to be sent. Without a hold the spend guard opened there is no request: a plain object
 * shaped like one is refused here, so no feature can skip its budgets by building its own.
 */
export async function coverRequest(hold: SpendHold, call: GatewayCallWork): Promise<CoveredCall> {
  if (!(hold instanceof SpendHold)) {
    throw new TypeError('a gateway request needs a spend hold opened by the spend guard');
  }
  try {
    return await hold.cover(call);
  } catch (error) {
    if (error instanceof SpendLimitReachedError) {
      throw new GatewayError({ kind: 'budget', message: error.message, userMessage: error.userMessage });
    }
    throw new GatewayError({
      kind: 'budget',
      message: 'the budgets could not be read to cover a gateway call',
      userMessage: budgetsUnreadableMessage,
      cause: error,
    });
  }
}
