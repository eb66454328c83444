import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  cleanTitle,
  firstWordsTitle,
  maxTitleCharacters,
  untitledConversation,
  writeTitle,
} from '../../src/conversation/title-writer.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { type GatewayUnderTest, startGatewayUnderTest } from '../support/gateway-under-test.ts';

let subject: GatewayUnderTest;
beforeAll(async () => {
  subject = await startGatewayUnderTest();
});
afterAll(() => subject.close());
beforeEach(() => subject.fake.reset());

const exchange = {
  question: 'How do I rotate the signing keys of our staging cluster without downtime?',
  answer: 'Add the new key, let both verify for a day, then drop the old one.',
};

type SentBody = {
  response_format?: { type: string; json_schema?: { name: string } };
  max_tokens?: number;
  model: string;
  messages: Array<{ role: string; content: unknown }>;
};
const sentBody = (index: number) => subject.fake.requests[index]?.body as SentBody;

describe('writeTitle', () => {
  it('asks the title model through json_schema and keeps the title it gives', async () => {
    subject.fake.enqueue({ text: JSON.stringify({ title: 'Rotating staging signing keys' }) });
    const { logger } = createCapturedLogger();
    const written = await writeTitle({
      gateway: subject.gateway,
      hold: subject.hold,
      model: 'chat-model',
      exchange,
      logger,
    });
    expect(written).toMatchObject({ title: 'Rotating staging signing keys', origin: 'json-schema' });
    expect(written.usage.totalTokens).toBeGreaterThan(0);
    const body = sentBody(0);
    expect(body.model).toBe('chat-model');
    expect(body.response_format?.type).toBe('json_schema');
    expect(body.response_format?.json_schema?.name).toBe('conversation_title');
    expect(JSON.stringify(body.messages)).toContain('rotate the signing keys');
    expect(JSON.stringify(body.messages)).toContain('let both verify');
  });

  it('cuts a long title at a word boundary to 60 characters', async () => {
    const long =
      'A very thorough walkthrough of rotating signing keys on the staging cluster without any downtime';
    subject.fake.enqueue({ text: JSON.stringify({ title: long }) });
    const { logger } = createCapturedLogger();
    const written = await writeTitle({
      gateway: subject.gateway,
      hold: subject.hold,
      model: 'chat-model',
      exchange,
      logger,
    });
    expect([...written.title].length).toBeLessThanOrEqual(maxTitleCharacters);
    expect(written.title).toMatch(/^A very thorough walkthrough of rotating signing keys on\S*…$/);
  });

  it('asks in plain text when the JSON answer fails validation twice', async () => {
    subject.fake.enqueue({ invalidJson: true });
    subject.fake.enqueue({ invalidJson: true });
    subject.fake.enqueue({ text: '"Staging key rotation."' });
    const { logger, output } = createCapturedLogger();
    const written = await writeTitle({
      gateway: subject.gateway,
      hold: subject.hold,
      model: 'chat-model',
      exchange,
      logger,
    });
    expect(written).toMatchObject({ title: 'Staging key rotation', origin: 'plain-text' });
    expect(subject.fake.requests).toHaveLength(3);
    expect(sentBody(2).response_format).toBeUndefined();
    expect(output()).toContain('structured title failed');
  });

  it('takes the question’s first words when the gateway fails, and never throws', async () => {
    subject.fake.enqueue({ error: { status: 500 } });
    subject.fake.enqueue({ error: { status: 500 } });
    const { logger, output } = createCapturedLogger();
    const written = await writeTitle({
      gateway: subject.gateway,
      hold: subject.hold,
      model: 'chat-model',
      exchange,
      logger,
    });
    expect(written.origin).toBe('first-words');
    expect(written.title).toBe('How do I rotate the signing keys of our staging cluster…');
    expect(written.usage.totalTokens).toBe(0);
    expect(output()).toContain('title model failed');
  });

  it('falls back to json_object for a model without json_schema', async () => {
    subject.fake.enqueue({ text: JSON.stringify({ title: 'Key rotation' }) });
    const { logger } = createCapturedLogger();
    const written = await writeTitle({
      gateway: subject.gateway,
      hold: subject.hold,
      model: 'no-schema-model',
      exchange,
      logger,
    });
    expect(written).toMatchObject({ title: 'Key rotation', origin: 'json-schema' });
    expect(sentBody(0).response_format?.type).toBe('json_object');
  });
});

describe('cleanTitle', () => {
  it('keeps one plain line', () => {
    expect(cleanTitle('## **Title:** "Deploy plan".\nmore')).toBe('Deploy plan');
    expect(cleanTitle('   ')).toBe('');
  });

  it('never cuts an emoji in half', () => {
    const title = cleanTitle('🎉'.repeat(80));
    expect([...title].length).toBe(maxTitleCharacters);
    expect(title.endsWith('🎉…')).toBe(true);
  });
});

describe('firstWordsTitle', () => {
  it('names an exchange without words', () => {
    expect(firstWordsTitle('')).toBe(untitledConversation);
    expect(firstWordsTitle('What is a monad?')).toBe('What is a monad?');
  });
});
