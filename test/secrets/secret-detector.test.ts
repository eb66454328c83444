import fc from 'fast-check';
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/access/actor.ts';
import { createMemoryBook } from '../../src/memory/memory-book.ts';
import { containsSecret, redactSecrets } from '../../src/secrets/secret-detector.ts';
import { createCapturedLogger } from '../support/capture-logger.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

/**
 * One detector for memory, logs and /export (issue 34, item 5): credentials of every family the
 * issue names, generated with random bodies of the right alphabet and length, are refused by
 * `remember`, scrubbed from every logged line and absent from an export; ordinary text, commit
 * hashes, UUIDs and plain links are left alone, so memory stays useful.
 */

/** A credential as someone would paste it, and the part of it that must never be written again. */
interface Credential {
  readonly family: string;
  readonly written: string;
  /** What must not appear anywhere (for a key block: each line of its body). */
  readonly secretParts: readonly string[];
}

const token = (family: string, pattern: RegExp) =>
  fc.stringMatching(pattern).map((value): Credential => ({ family, written: value, secretParts: [value] }));

/** `key: value` shapes: only the value is secret, the name may stay. */
const assigned = (family: string, names: readonly string[], value: fc.Arbitrary<string>) =>
  fc.tuple(fc.constantFrom(...names), fc.constantFrom(': ', '=', ' = ', ' is '), value).map(
    ([name, joiner, secret]): Credential => ({
      family,
      written: `${name}${joiner}${secret}`,
      secretParts: [secret],
    }),
  );

const hasDigit = (value: string) => /\d/.test(value);

const base64Line = (length: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9+/]{${length}}$`));

const privateKeyBlock = fc
  .tuple(
    fc.constantFrom('RSA ', 'EC ', 'OPENSSH ', 'DSA ', ''),
    fc.array(base64Line(64), { minLength: 1, maxLength: 3 }),
    fc.boolean(),
  )
  .map(
    ([kind, lines, isWhole]): Credential => ({
      family: 'private key block',
      written: `-----BEGIN ${kind}PRIVATE KEY-----\n${lines.join('\n')}${isWhole ? `\n-----END ${kind}PRIVATE KEY-----` : ''}`,
      secretParts: lines,
    }),
  );

// The shapes issue 34 names, each as its issuer documents it.
const credentialArbitraries: Record<string, fc.Arbitrary<Credential>> = {
  'GitHub classic token': token('GitHub classic token', /^gh[pousr]_[A-Za-z0-9]{36}$/),
  'GitHub fine-grained token': token(
    'GitHub fine-grained token',
    /^github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}$/,
  ),
  'AWS access key id': token('AWS access key id', /^(AKIA|ASIA)[A-Z0-9]{16}$/),
  'AWS secret access key': assigned(
    'AWS secret access key',
    ['aws_secret_access_key', 'AWS_SECRET_ACCESS_KEY', 'SecretAccessKey'],
    // A random key of 40 characters holds a digit (all but 0.1% do); "is" asks for one in prose.
    fc.stringMatching(/^[A-Za-z0-9/+]{40}$/).filter(hasDigit),
  ),
  'Google API key': token('Google API key', /^AIza[A-Za-z0-9_-]{35}$/),
  'Discord bot token': token(
    'Discord bot token',
    /^[MNO][A-Za-z0-9_-]{23,26}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}$/,
  ),
  'JSON Web Token': token(
    'JSON Web Token',
    /^eyJ[A-Za-z0-9_-]{12,40}\.eyJ[A-Za-z0-9_-]{12,80}\.[A-Za-z0-9_-]{0,60}$/,
  ),
  'Slack incoming webhook': token(
    'Slack incoming webhook',
    /^https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]{8,10}\/B[A-Z0-9]{8,10}\/[A-Za-z0-9]{24}$/,
  ),
  'Slack bot token': token('Slack bot token', /^xoxb-[0-9]{10,13}-[0-9]{10,13}-[A-Za-z0-9]{24}$/),
  'Stripe live key': token('Stripe live key', /^(sk|rk)_live_[A-Za-z0-9]{24,99}$/),
  password: assigned(
    'password',
    ['password', 'Password', 'pwd', 'passwd', 'my password', 'PASSWORD'],
    fc.stringMatching(/^[A-Za-z0-9!#$%&*+./<>?@^_~-]{8,24}$/).filter((value) => /[A-Za-z]/.test(value)),
  ),
  'private key block': privateKeyBlock,
  'npm token': token('npm token', /^npm_[A-Za-z0-9]{36}$/),
  'OpenAI key': token('OpenAI key', /^sk-(proj-)?[A-Za-z0-9_-]{20,80}$/),
  'Anthropic key': token('Anthropic key', /^sk-ant-api03-[A-Za-z0-9_-]{93}AA$/),
  'named API key': assigned(
    'named API key',
    ['api_key', 'API_KEY', 'apiKey', 'client_secret', 'access_token'],
    fc.stringMatching(/^[A-Za-z0-9_-]{16,48}$/).filter(hasDigit),
  ),
};

/** A credential inside a sentence, as it would be pasted into a chat. */
const pasted = fc
  .tuple(
    fc.oneof(...Object.values(credentialArbitraries)),
    fc.constantFrom('', 'my key is ', 'use this: ', 'here you go\n', '(', '"'),
    fc.constantFrom('', ' thanks', '.', '\nok', ')', '"', ', then'),
  )
  .map(([credential, before, after]) => ({ credential, sentence: `${before}${credential.written}${after}` }));

const actor: Actor = { id: 'ada', name: 'Ada', roleIds: [], isAdmin: false, context: 'server' };

describe('the secret detector: memory, logs and exports', () => {
  it('remember refuses every generated credential, with the short reason', async () => {
    const book = createMemoryBook({ store: new Keyv() });
    await fc.assert(
      fc.asyncProperty(pasted, async ({ sentence }) => {
        const outcome = await book.remember({
          actor,
          conversationKey: 'discord:guild:channel',
          scope: 'person',
          text: sentence,
          now: new Date('2026-12-07T12:00:00Z'),
        });
        expect(outcome).toEqual({
          isKept: false,
          reason: 'it looks like a password, token or key, which parley never remembers',
        });
      }),
      { numRuns: 400 },
    );
    expect(await book.notesOf({ actor, conversationKey: 'discord:guild:channel', scope: 'person' })).toEqual(
      [],
    );
  });

  it('every generated family is found on its own, so none is carried by its neighbours', () => {
    for (const [family, arbitrary] of Object.entries(credentialArbitraries)) {
      fc.assert(
        fc.property(arbitrary, (credential) => {
          expect(containsSecret({ text: credential.written }), family).toBe(true);
        }),
        { numRuns: 50 },
      );
    }
  });

  it('no logged line holds a generated credential: not the message, a field or an error', () => {
    fc.assert(
      fc.property(pasted, fc.nat(), ({ credential, sentence }, caseNumber) => {
        const { logger, output } = createCapturedLogger([]);
        const marker = `case-${caseNumber}`;
        logger.warn({ detail: sentence, place: marker }, `${marker} said ${sentence}`);
        logger.error(
          { err: new Error(`upstream refused ${sentence}`, { cause: new Error(sentence) }) },
          marker,
        );
        const lines = output();
        expect(lines).toContain(marker);
        expect(lines).toContain('[redacted]');
        for (const part of credential.secretParts) expect(lines).not.toContain(part);
      }),
      { numRuns: 300 },
    );
  });

  describe('/export', () => {
    let under: ConsoleUnderTest;
    beforeAll(async () => {
      under = await startConsoleUnderTest();
    });
    afterAll(() => under.close());

    it('an export holds none of the credentials someone pasted into a chat turn', async () => {
      const oneOfEach = fc.tuple(...Object.values(credentialArbitraries));
      await fc.assert(
        fc.asyncProperty(oneOfEach, async (credentials) => {
          // The terminal reads a line at a time, so a key block arrives as one line of words.
          const line = credentials
            .map((credential) => credential.written.replaceAll('\n', ' '))
            .join(' and ');
          under.fake.enqueue({ text: 'I will not keep those.' });
          await under.type(line);
          const exported = JSON.stringify(
            await under.app.personData.export({ person: { platform: 'console', userId: 'ada' } }),
            null,
            2,
          );
          expect(exported).toContain('I will not keep those.');
          for (const credential of credentials) {
            for (const part of credential.secretParts)
              expect(exported, credential.family).not.toContain(part);
          }
          // History keeps the turn as it was said (docs/data.md): the export redacts, not the store.
          const kept = JSON.stringify(await under.services.history.load('console:local:ada'));
          expect(kept).toContain(credentials[0]?.secretParts[0]);
        }),
        { numRuns: 5 },
      );
    });
  });

  it('leaves ordinary sentences, commit hashes, UUIDs, ids and plain links alone', async () => {
    const ordinary = fc.oneof(
      fc.lorem({ mode: 'sentences', maxCount: 3 }),
      fc.stringMatching(/^[0-9a-f]{40}$/).map((hash) => `fixed in commit ${hash}`),
      fc.uuid().map((uuid) => `request id ${uuid}`),
      fc.bigInt({ min: 10n ** 16n, max: 10n ** 19n }).map((id) => `message ${id} in channel ${id + 7n}`),
      fc.webUrl({ withQueryParameters: true, withFragments: true }).map((url) => `see ${url}`),
      fc.constantFrom(
        'Prefers tea to coffee.',
        'Works on the billing service in Go and TypeScript.',
        'Her dog is called Rex; she walks him at 07:30.',
        'Likes answers short, with code first.',
        'Keeps her passwords in a password manager.',
        'Was born on 1990-04-12 and lives in Lyon.',
        'Uses the sk-learn library and the AWS console daily.',
        'Asked about the token bucket algorithm and API keys in general.',
        'Reads https://example.com?q=a:b@c and https://example.org#x:y@z every morning.',
      ),
    );
    const book = createMemoryBook({ store: new Keyv() });
    await fc.assert(
      fc.asyncProperty(ordinary, async (text) => {
        expect(containsSecret({ text })).toBe(false);
        expect(redactSecrets({ text })).toBe(text);
        const { logger, output } = createCapturedLogger([]);
        logger.info({ detail: text }, 'ordinary');
        expect(output()).not.toContain('[redacted]');
        if (text.length <= 200) {
          const outcome = await book.remember({
            actor,
            conversationKey: 'discord:guild:channel',
            scope: 'person',
            text,
            now: new Date('2026-12-07T12:00:00Z'),
          });
          expect(outcome.isKept).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
