import type { Scenario } from './scenario.ts';
import { discordScenarios } from './scenarios/discord.ts';
import { gatewayScenarios } from './scenarios/gateway.ts';
import { inputScenarios } from './scenarios/inputs.ts';
import { orderScenarios } from './scenarios/order.ts';
import { platformOutageScenarios } from './scenarios/platform-outages.ts';
import { processScenarios } from './scenarios/process.ts';
import { configScenarios } from './scenarios/process-config.ts';
import { slackScenarios } from './scenarios/slack.ts';
import { storeScenarios } from './scenarios/store.ts';
import { frozenCallScenarios } from './scenarios/store-frozen-calls.ts';
import { redisRestartScenario, redisRestoredMidReplyScenario } from './scenarios/store-redis-restart.ts';

/** Every scenario, grouped by area in the order they run. */
export const allScenarios: readonly Scenario[] = [
  ...gatewayScenarios,
  ...discordScenarios,
  ...platformOutageScenarios,
  ...slackScenarios,
  ...orderScenarios,
  ...storeScenarios,
  ...frozenCallScenarios,
  redisRestartScenario,
  redisRestoredMidReplyScenario,
  ...processScenarios,
  ...configScenarios,
  ...inputScenarios,
];
