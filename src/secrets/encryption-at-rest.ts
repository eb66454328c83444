import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Tokens parley keeps for others (Slack installations, each person's connector tokens) are sealed
 * with AES-256-GCM before they reach the store, so a copy of the store alone gives nobody a token.
 *
 * A sealed value reads `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts). The key id is the
 * start of the key's SHA-256, so a value names the key that opens it without revealing it, and key
 * rotation works by adding the new key as current and keeping the old one read-only until every
 * value has been sealed again (`needsResealing`).
 *
 * Each value is sealed with its context (for example `slack-installation:T123`) as GCM's associated
 * data: a ciphertext copied into another record fails to open instead of handing over a token.
 */

const keyLengthBytes = 32;
const ivLengthBytes = 12;
const formatVersion = 'v1';

export class EncryptionKeyError extends Error {}
export class SealedValueError extends Error {}

export interface AtRestKey {
  id: string;
  key: Buffer;
}

/**
 * A 32-byte key from a variable's value, written as 64 hex digits or 44 characters of base64. The
 * error names the variable and what it needs, never the value.
 */
export function parseEncryptionKey({ value, variable }: { value: string; variable: string }): AtRestKey {
  const trimmed = value.trim();
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) key = Buffer.from(trimmed, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) key = Buffer.from(trimmed, 'base64');
  if (key?.length !== keyLengthBytes) {
    throw new EncryptionKeyError(
      `${variable} must be a 32-byte key, written as 64 hex digits or 44 base64 characters (make one with: openssl rand -base64 32)`,
    );
  }
  return { id: keyIdOf(key), key };
}

function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export class AtRestEncryption {
  readonly #current: AtRestKey;
  readonly #byId: Map<string, AtRestKey>;

  /** `current` seals and opens; each of `readOnly` only opens values sealed before a rotation. */
  constructor({ current, readOnly = [] }: { current: AtRestKey; readOnly?: readonly AtRestKey[] }) {
    this.#current = current;
    this.#byId = new Map([...readOnly, current].map((entry) => [entry.id, entry]));
  }

  seal({ plaintext, context }: { plaintext: string; context: string }): string {
    const iv = randomBytes(ivLengthBytes);
    const cipher = createCipheriv('aes-256-gcm', this.#current.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [formatVersion, this.#current.id, iv, ciphertext, tag]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** The plaintext, or SealedValueError when the value is malformed, its key unknown, or it was altered or moved. */
  open({ sealed, context }: { sealed: string; context: string }): string {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== formatVersion) {
      throw new SealedValueError('not a sealed value');
    }
    const [, keyId, ivText, ciphertextText, tagText] = parts as [string, string, string, string, string];
    const entry = this.#byId.get(keyId);
    if (!entry) throw new SealedValueError(`sealed with key ${keyId}, which is not configured`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(ivText, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tagText, 'base64url'));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertextText, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SealedValueError('the sealed value does not open with its key and context');
    }
  }

  /** Whether `sealed` was sealed with a key other than the current one (rotate it by sealing again). */
  needsResealing({ sealed }: { sealed: string }): boolean {
    return sealed.split('.')[1] !== this.#current.id;
  }
}

/**
 * The encryption from a pair of variables: `<name>` (the current key) and `<name>_OLD` (the key being
 * rotated out, read-only). Undefined when `<name>` is unset.
 */
export function encryptionFromEnvironment({
  environment,
  variable,
}: {
  environment: Readonly<Record<string, string | undefined>>;
  variable: string;
}): AtRestEncryption | undefined {
  const currentValue = environment[variable];
  if (currentValue === undefined || currentValue.trim() === '') return undefined;
  const current = parseEncryptionKey({ value: currentValue, variable });
  const oldVariable = `${variable}_OLD`;
  const oldValue = environment[oldVariable];
  const readOnly =
    oldValue === undefined || oldValue.trim() === ''
      ? []
      : [parseEncryptionKey({ value: oldValue, variable: oldVariable })];
  return new AtRestEncryption({ current, readOnly });
}
