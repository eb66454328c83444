import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConversationKey, IncomingTurn } from '../src/conversation/turn.ts';
import { modelCatalogSchema } from '../src/gateway/model-catalog.ts';
import { startFakeGateway } from '../test/fakes/gateway/index.ts';
import type { RecordedRequest } from '../test/fakes/gateway/request-handler.ts';
import { usageFor } from '../test/fakes/gateway/usage.ts';
import { createRecordingSurface } from '../test/support/recording-surface.ts';
import { buildTestBot } from '../test/support/test-bot.ts';

/**
 * What one summarisation costs (issue 26): a 300-turn conversation (150 exchanges of a ~250-character
 * question and a ~700-character answer) through the real engine, gateway client, spend guard and
 * summary folding, against the fake gateway over loopback, with the shipped catalog
 * (config/models.json) and its prices. Each fold request's prompt and completion tokens are counted
 * the way the fake reports `usage` (four characters a token) and priced at SUMMARY_MODEL's entry;
 * the fake answers a fold with a summary of 1,800 characters, close to SUMMARY_MAX_CHARACTERS'
 * default 2,000, so the completion side is the most a fold writes by default.
 * Usage: node bench/summary-cost.ts
 */
const exchanges = 150;
const summaryText = 'The group agreed on the harbour plan, the ferry times and who brings what. '
  .repeat(24)
  .slice(0, 1_800);
const catalogPath = join(import.meta.dirname, '..', 'config', 'models.json');
const catalog = modelCatalogSchema.parse(JSON.parse(readFileSync(catalogPath, 'utf8')));
const write = (text: string) => process.stdout.write(text);

interface Configuration {
  readonly name: string;
  readonly chatModel: string;
  readonly environment: Record<string, string>;
}

// The defaults (CHAT_MODEL and so SUMMARY_MODEL gpt-4o-mini, 128k tokens: folds come from
// HISTORY_MAX_TURNS), and a chat model with the catalog's cautious 8,192-token window, whose
// context fills long before that, summarised by the same default SUMMARY_MODEL.
const configurations: Configuration[] = [
  { name: 'defaults (gpt-4o-mini chats and summarises)', chatModel: 'gpt-4o-mini', environment: {} },
  {
    name: 'an 8,192-token chat model, summarised by gpt-4o-mini',
    chatModel: 'small-window-model',
    environment: { SUMMARY_MODEL: 'gpt-4o-mini' },
  },
];

const isFold = (request: RecordedRequest) =>
  JSON.stringify((request.body as { messages?: unknown }).messages ?? '').includes('running summary');

write(`summary cost: ${exchanges * 2} turns, catalog ${catalogPath}\n\n`);
write(
  "| configuration | folds | prompt tokens a fold (mean, max) | completion tokens a fold | cost a fold (mean) | folds' share of the conversation's cost |\n",
);
write('|---|---:|---:|---:|---:|---:|\n');
for (const configuration of configurations) {
  const gateway = await startFakeGateway({
    apiKey: 'bench-key-0123456789',
    replyTextFor: (request) =>
      isFold(request) ? summaryText : `Answer with the details you asked for. `.repeat(18).slice(0, 700),
  });
  const bot = buildTestBot({
    gatewayBaseUrl: gateway.baseUrl,
    gatewayApiKey: 'bench-key-0123456789',
    environment: {
      MODEL_CAPABILITIES_FILE: catalogPath,
      CHAT_MODEL: configuration.chatModel,
      VISION_MODEL: 'gpt-4o-mini',
      STRUCTURED_MODEL: 'gpt-4o-mini',
      LOG_LEVEL: 'warn',
      ...configuration.environment,
    },
  });
  const conversationKey: ConversationKey = 'console:local:bench';
  for (let index = 0; index < exchanges; index += 1) {
    const turn: IncomingTurn = {
      conversationKey,
      author: { id: 'ada', name: 'Ada' },
      actor: { id: 'ada', name: 'Ada', roleIds: [], isAdmin: true, context: 'terminal' },
      text: `Question ${index + 1}: what about the harbour, the ferry times and the plan for Friday? `
        .repeat(3)
        .slice(0, 250),
      images: [],
    };
    await bot.app.engine.reply({ turn, surface: createRecordingSurface({ minEditIntervalMs: 0 }) });
  }
  const price = (model: string) => ({ ...catalog.defaults.price, ...catalog.models[model]?.price });
  const costOf = (request: RecordedRequest, replyText: string) => {
    const body = request.body as Parameters<typeof usageFor>[0]['request'] & { model: string };
    const usage = usageFor({ request: body, replyTexts: [replyText], override: undefined });
    const { inputPerMillionTokens = 0, outputPerMillionTokens = 0 } = price(body.model);
    return {
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      cost:
        (usage.prompt_tokens * inputPerMillionTokens + usage.completion_tokens * outputPerMillionTokens) /
        1e6,
    };
  };
  const chats = gateway.requests.filter((request) => request.path.endsWith('/chat/completions'));
  const folds = chats.filter(isFold).map((request) => costOf(request, summaryText));
  const replies = chats
    .filter((request) => !isFold(request))
    .map((request) => costOf(request, 'x'.repeat(700)));
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const mean = (values: number[]) => (values.length === 0 ? 0 : sum(values) / values.length);
  const foldCost = sum(folds.map((fold) => fold.cost));
  const allCost = foldCost + sum(replies.map((reply) => reply.cost));
  write(
    `| ${configuration.name} | ${folds.length} | ${mean(folds.map((fold) => fold.promptTokens)).toFixed(0)}, ${Math.max(0, ...folds.map((fold) => fold.promptTokens))} | ${mean(folds.map((fold) => fold.completionTokens)).toFixed(0)} | $${mean(folds.map((fold) => fold.cost)).toFixed(6)} | ${((foldCost / allCost) * 100).toFixed(1)} % of $${allCost.toFixed(4)} |\n`,
  );
  await bot.close();
  await gateway.close();
}
