import { isAbsolute, resolve } from 'node:path';
import { UserFacingError } from '../user-facing-error.ts';

/** Where history lives when nothing is configured: a file next to the bot, no server needed. */
export const defaultStoreUrl = 'sqlite://./data/parley.sqlite';

const acceptedForms = [
  'memory:// (tests; nothing survives a restart)',
  'sqlite://./relative/path.sqlite (relative to the working directory)',
  'sqlite:///absolute/path.sqlite',
  'redis://[user:password@]host[:port][/database]',
  'rediss://… (Redis over TLS)',
  'postgres://[user:password@]host[:port]/database (history and settings; locks and budgets stay in this process)',
];

/** What a store URL asks for, with the parts each kind of store needs. */
export type StoreLocation =
  | { readonly kind: 'memory' }
  | { readonly kind: 'sqlite'; readonly filePath: string }
  | { readonly kind: 'redis'; readonly url: string }
  | { readonly kind: 'postgres'; readonly url: string };

/** A store URL parley cannot use. The message names the accepted forms and never the password. */
export class StoreUrlError extends UserFacingError {
  override readonly name = 'StoreUrlError';
  /** The URL with its password replaced, safe to log. */
  readonly redactedStoreUrl: string;

  constructor({ storeUrl, problem }: { storeUrl: string; problem: string }) {
    const redactedStoreUrl = redactStoreUrl(storeUrl);
    // Written for the operator who set STORE_URL, and safe to show: the password is replaced.
    const message = `Cannot use the store URL "${redactedStoreUrl}": ${problem}. Accepted forms: ${acceptedForms.join('; ')}`;
    super({ message, userMessage: message });
    this.redactedStoreUrl = redactedStoreUrl;
  }
}

/**
 * Reads a store URL. Relative SQLite paths resolve against `workingDirectory` (default: the process's),
 * so `sqlite://./data/parley.sqlite` lands in `./data` of wherever the bot was started.
 */
export function parseStoreUrl({
  storeUrl,
  workingDirectory = process.cwd(),
}: {
  storeUrl: string;
  workingDirectory?: string;
}): StoreLocation {
  const schemeEnd = storeUrl.indexOf('://');
  if (schemeEnd === -1) throw new StoreUrlError({ storeUrl, problem: 'it has no scheme' });
  const scheme = storeUrl.slice(0, schemeEnd).toLowerCase();
  const rest = storeUrl.slice(schemeEnd + '://'.length);
  switch (scheme) {
    case 'memory':
      return { kind: 'memory' };
    case 'sqlite': {
      // Not parsed with URL: it would read the "." of "./data" as a host name.
      if (rest === '') throw new StoreUrlError({ storeUrl, problem: 'it names no file' });
      const filePath = isAbsolute(rest) ? rest : resolve(workingDirectory, rest);
      return { kind: 'sqlite', filePath };
    }
    case 'redis':
    case 'rediss':
      // Checked here because the Redis client's own parse error carries the whole URL, password included.
      if (!URL.canParse(storeUrl)) throw new StoreUrlError({ storeUrl, problem: 'it is not a valid URL' });
      return { kind: 'redis', url: storeUrl };
    case 'postgres':
    case 'postgresql':
      if (!URL.canParse(storeUrl)) throw new StoreUrlError({ storeUrl, problem: 'it is not a valid URL' });
      return { kind: 'postgres', url: storeUrl };
    default:
      throw new StoreUrlError({ storeUrl, problem: `the scheme "${scheme}" is not supported` });
  }
}

/**
 * Replaces the password of a connection URL (`redis://user:secret@host` → `redis://user:***@host`),
 * for logs and error messages. Without a password the URL comes back unchanged.
 */
export function redactStoreUrl(storeUrl: string): string {
  // Greedy up to the last "@", so a password holding an unescaped "@" is hidden whole.
  return storeUrl.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)\S*@/i, '$1***@');
}
