import { redactSecrets } from './secret-detector.ts';

/**
 * A copy of a JSON-like value (what /export writes) with credential-shaped text redacted in every
 * string it holds, however deep: a token someone pasted into a chat turn, a reminder or a note
 * before this detector knew its shape is not handed out again in a file. Keys, numbers and
 * anything that is not a plain object or array are kept as they are.
 */
export function redactSecretsInValue({ value }: { value: unknown }): unknown {
  if (typeof value === 'string') return redactSecrets({ text: value });
  if (Array.isArray(value)) return value.map((item: unknown) => redactSecretsInValue({ value: item }));
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, redactSecretsInValue({ value: item })]),
    );
  }
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
