import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  AtRestEncryption,
  EncryptionKeyError,
  encryptionFromEnvironment,
  parseEncryptionKey,
  SealedValueError,
} from '../../src/secrets/encryption-at-rest.ts';

/**
 * Tokens kept for others are sealed with AES-256-GCM (issues 36 and 37): the store holds no token in
 * the clear, a value opens only with its key and in its own record, and a rotated-out key still opens
 * old values until they are sealed again.
 */

const newKey = (variable = 'TEST_KEY') =>
  parseEncryptionKey({ value: randomBytes(32).toString('base64'), variable });

describe('encryption at rest', () => {
  it('seals a token so the sealed text does not hold it, and opens it again in the same context', () => {
    const encryption = new AtRestEncryption({ current: newKey() });
    const token = 'xoxb-1234-5678-abcdefghijklmnop';
    const sealed = encryption.seal({ plaintext: token, context: 'slack-installation:T1' });
    expect(sealed).not.toContain(token);
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(encryption.open({ sealed, context: 'slack-installation:T1' })).toBe(token);
    // The same token sealed twice differs (a fresh IV each time).
    expect(encryption.seal({ plaintext: token, context: 'slack-installation:T1' })).not.toBe(sealed);
  });

  it('refuses a value moved to another record, altered, or sealed with a key it does not have', () => {
    const encryption = new AtRestEncryption({ current: newKey() });
    const sealed = encryption.seal({ plaintext: 'secret', context: 'connector:alice' });
    expect(() => encryption.open({ sealed, context: 'connector:bob' })).toThrow(SealedValueError);
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3] ?? '', 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    parts[3] = flipped.toString('base64url');
    expect(() => encryption.open({ sealed: parts.join('.'), context: 'connector:alice' })).toThrow(
      SealedValueError,
    );
    const stranger = new AtRestEncryption({ current: newKey() });
    expect(() => stranger.open({ sealed, context: 'connector:alice' })).toThrow(/not configured/);
    expect(() => encryption.open({ sealed: 'plain-token', context: 'connector:alice' })).toThrow(
      SealedValueError,
    );
  });

  it('opens values of the rotated-out key read-only and says which need sealing again', () => {
    const oldKey = newKey();
    const before = new AtRestEncryption({ current: oldKey });
    const sealedBefore = before.seal({ plaintext: 'token-a', context: 'c' });
    const after = new AtRestEncryption({ current: newKey(), readOnly: [oldKey] });
    expect(after.open({ sealed: sealedBefore, context: 'c' })).toBe('token-a');
    expect(after.needsResealing({ sealed: sealedBefore })).toBe(true);
    const resealed = after.seal({ plaintext: 'token-a', context: 'c' });
    expect(after.needsResealing({ sealed: resealed })).toBe(false);
    // Once the old key is dropped, only resealed values open.
    const newKeyOnly = new AtRestEncryption({ current: newKey() });
    expect(() => newKeyOnly.open({ sealed: sealedBefore, context: 'c' })).toThrow(SealedValueError);
  });

  it('refuses a missing or wrong-length key by naming the variable, never the value', () => {
    const short = randomBytes(16).toString('hex');
    let message = '';
    try {
      parseEncryptionKey({ value: short, variable: 'SLACK_INSTALLATIONS_KEY' });
    } catch (error) {
      expect(error).toBeInstanceOf(EncryptionKeyError);
      message = (error as Error).message;
    }
    expect(message).toContain('SLACK_INSTALLATIONS_KEY');
    expect(message).not.toContain(short);
    expect(parseEncryptionKey({ value: randomBytes(32).toString('hex'), variable: 'K' }).key).toHaveLength(
      32,
    );
    expect(encryptionFromEnvironment({ environment: {}, variable: 'K' })).toBeUndefined();
    expect(() =>
      encryptionFromEnvironment({
        environment: { K: randomBytes(32).toString('hex'), K_OLD: 'short' },
        variable: 'K',
      }),
    ).toThrow(/K_OLD/);
  });
});
