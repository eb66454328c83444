import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GatewayError } from '../../src/gateway/gateway-error.ts';
import { type GatewayUnderTest, startGatewayUnderTest } from '../support/gateway-under-test.ts';

let subject: GatewayUnderTest;
beforeAll(async () => {
  subject = await startGatewayUnderTest();
});
afterAll(() => subject.close());
beforeEach(() => subject.fake.reset());

const summarySchema = z.object({
  title: z.string(),
  points: z.array(z.string()),
  owner: z.string().nullable(),
});
const messages = [{ role: 'user' as const, content: 'Summarize: we agreed to ship on Friday.' }];
const validSummary = JSON.stringify({ title: 'Ship date', points: ['ship Friday'], owner: null });

type SentBody = {
  response_format?: { type: string; json_schema?: { name: string; strict: boolean; schema: unknown } };
  messages: Array<{ role: string; content: string }>;
};
const sentBody = (index: number) => subject.fake.requests[index]?.body as SentBody;

describe('generateStructured', () => {
  it('sends a strict json_schema built from the zod schema to a model that supports it', async () => {
    subject.fake.enqueue({ text: validSummary });
    const reply = await subject.gateway.generateStructured({
      hold: subject.hold,
      maxTokens: 100,
      model: 'chat-model',
      messages,
      schema: summarySchema,
      schemaName: 'summary',
    });
    expect(reply.value).toEqual({ title: 'Ship date', points: ['ship Friday'], owner: null });
    expect(reply.mode).toBe('json_schema');
    const body = sentBody(0);
    expect(body.response_format?.type).toBe('json_schema');
    expect(body.response_format?.json_schema).toMatchObject({
      name: 'summary',
      strict: true,
      schema: { type: 'object', required: ['title', 'points', 'owner'], additionalProperties: false },
    });
    expect(body.messages[0]?.content).toMatch(/JSON/);
  });

  it('falls back to json_object with the schema in the system message, and the word JSON', async () => {
    subject.fake.enqueue({ text: validSummary });
    const reply = await subject.gateway.generateStructured({
      hold: subject.hold,
      maxTokens: 100,
      model: 'no-schema-model',
      messages,
      schema: summarySchema,
      schemaName: 'summary',
    });
    expect(reply.mode).toBe('json_object');
    const body = sentBody(0);
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.messages[0]?.role).toBe('system');
    expect(body.messages[0]?.content).toMatch(/JSON/);
    expect(body.messages[0]?.content).toContain('"required":["title","points","owner"]');
  });

  it('switches to json_object once when the gateway refuses json_schema the catalog promised', async () => {
    // The refused request takes the first queued behaviour, the json_object retry the second.
    subject.fake.enqueue({});
    subject.fake.enqueue({ text: validSummary });
    const reply = await subject.gateway.generateStructured({
      hold: subject.hold,
      maxTokens: 100,
      model: 'believed-schema-model',
      messages,
      schema: summarySchema,
      schemaName: 'summary',
    });
    expect(reply.mode).toBe('json_object');
    expect(subject.fake.requests).toHaveLength(2);
    expect(sentBody(0).response_format?.type).toBe('json_schema');
    expect(sentBody(1).response_format?.type).toBe('json_object');
  });

  it('asks once more, quoting the validation error, when the reply does not fit', async () => {
    subject.fake.enqueue({ text: JSON.stringify({ title: 'Ship date', points: 'not a list', owner: null }) });
    subject.fake.enqueue({ text: validSummary });
    const reply = await subject.gateway.generateStructured({
      hold: subject.hold,
      maxTokens: 100,
      model: 'chat-model',
      messages,
      schema: summarySchema,
      schemaName: 'summary',
    });
    expect(reply.attempts).toBe(2);
    expect(reply.value.points).toEqual(['ship Friday']);
    const repair = sentBody(1).messages;
    expect(repair.at(-2)).toMatchObject({ role: 'assistant' });
    expect(repair.at(-1)?.content).toMatch(/points: .*expected array/i);
    expect(reply.usage.totalTokens).toBeGreaterThan(0);
  });

  it('repairs a reply that is not JSON at all', async () => {
    subject.fake.enqueue({ invalidJson: true });
    subject.fake.enqueue({ text: validSummary });
    const reply = await subject.gateway.generateStructured({
      hold: subject.hold,
      maxTokens: 100,
      model: 'no-schema-model',
      messages,
      schema: summarySchema,
      schemaName: 'summary',
    });
    expect(reply.attempts).toBe(2);
    expect(sentBody(1).messages.at(-1)?.content).toMatch(/not parseable JSON/);
  });

  it('gives a typed invalid-reply error after the repair also fails, keeping the raw reply for the log', async () => {
    subject.fake.enqueue({ invalidJson: true });
    subject.fake.enqueue({ invalidJson: true });
    let caught: unknown;
    try {
      await subject.gateway.generateStructured({
        hold: subject.hold,
        maxTokens: 100,
        model: 'chat-model',
        messages,
        schema: summarySchema,
        schemaName: 'summary',
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect((caught as GatewayError).kind).toBe('invalid-reply');
    expect((caught as GatewayError).detail?.length).toBeGreaterThan(0);
    expect((caught as GatewayError).userMessage).not.toContain((caught as GatewayError).detail);
    expect(subject.fake.requests).toHaveLength(2);
  });

  it('accepts JSON wrapped in a Markdown fence', async () => {
    subject.fake.enqueue({ text: `\`\`\`json\n${validSummary}\n\`\`\`` });
    const reply = await subject.gateway.generateStructured({
      hold: subject.hold,
      maxTokens: 100,
      model: 'chat-model',
      messages,
      schema: summarySchema,
      schemaName: 'summary',
    });
    expect(reply.attempts).toBe(1);
    expect(reply.value.title).toBe('Ship date');
  });
});
