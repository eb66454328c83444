import type { Gateway } from '../../src/gateway/gateway-client.ts';
import { createGateway } from '../../src/gateway/gateway-client.ts';
import type { ModelCatalog } from '../../src/gateway/model-catalog.ts';
import type { SpendHold } from '../../src/spending/spend-hold.ts';
import { type FakeGateway, type FakeGatewayOptions, startFakeGateway } from '../fakes/gateway/index.ts';
import { createCapturedLogger } from './capture-logger.ts';
import { createTestSpending } from './test-spending.ts';

export const testApiKey = 'gw-test-key-0123456789';

/** Models the tests use, with what the catalog (parley's belief) says about each. */
export const testCatalog: ModelCatalog = {
  defaults: { contextTokens: 16_000 },
  models: {
    'chat-model': { vision: false, jsonSchema: true, contextTokens: 16_000 },
    'vision-model': { vision: true, jsonSchema: true, contextTokens: 16_000 },
    'no-schema-model': { vision: false, jsonSchema: false, contextTokens: 16_000 },
    'believed-schema-model': { vision: false, jsonSchema: true, contextTokens: 16_000 },
    'url-image-model': { imageUrlOutput: true, imageInput: true, aspectRatio: true },
    'plain-image-model': { imageUrlOutput: false, imageInput: false, aspectRatio: false },
  },
};

/** What the fake gateway really supports, which may differ from the catalog on purpose. */
const fakeModels: FakeGatewayOptions['models'] = {
  'chat-model': { vision: false },
  'no-schema-model': { jsonSchema: false, vision: false },
  'believed-schema-model': { jsonSchema: false, vision: false },
  'plain-image-model': { imageUrlOutput: false, imageInput: false },
};

export interface GatewayUnderTest {
  readonly fake: FakeGateway;
  readonly gateway: Gateway;
  /** A hold from the real spend guard, without budgets: every request the tests send goes on it. */
  readonly hold: SpendHold;
  readonly logOutput: () => string;
  close(): Promise<void>;
}

/** The real gateway client (on the real `openai` SDK) against the fake gateway over loopback HTTP. */
export async function startGatewayUnderTest(
  options: {
    maxRetries?: number;
    timeoutMs?: number;
    firstByteTimeoutMs?: number;
    /** The base URL parley is given, from the fake's correct one; default: the correct one. */
    baseUrlOf?: (correctBaseUrl: string) => string;
  } = {},
): Promise<GatewayUnderTest> {
  const fake = await startFakeGateway({ apiKey: testApiKey, models: fakeModels });
  const { logger, output } = createCapturedLogger([testApiKey]);
  const gateway = createGateway({
    baseUrl: options.baseUrlOf?.(fake.baseUrl) ?? fake.baseUrl,
    apiKey: testApiKey,
    timeoutMs: options.timeoutMs ?? 5_000,
    ...(options.firstByteTimeoutMs === undefined ? {} : { firstByteTimeoutMs: options.firstByteTimeoutMs }),
    maxRetries: options.maxRetries ?? 0,
    catalog: testCatalog,
    logger,
    maxImageBytes: 5 * 1024 * 1024,
    imageTimeoutMs: 10_000,
  });
  const hold = await createTestSpending({ catalog: testCatalog, logger }).holdFor('chat-model');
  return { fake, gateway, hold, logOutput: output, close: () => fake.close() };
}
