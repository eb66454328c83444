import OpenAI from 'openai';
import type { FakeGateway } from '../fakes/gateway/index.ts';

/** The real `openai` SDK pointed at the fake, with retries off so each call is one request. */
export function createSdkClient(fake: FakeGateway, apiKey = 'test-key'): OpenAI {
  return new OpenAI({ baseURL: fake.baseUrl, apiKey, maxRetries: 0 });
}

/** Drains an async iterable into an array. */
export async function collect<Item>(items: AsyncIterable<Item>): Promise<Item[]> {
  const collected: Item[] = [];
  for await (const item of items) {
    collected.push(item);
  }
  return collected;
}

/** The error a promise rejects with; fails the test when it resolves instead. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, but it resolved');
}
