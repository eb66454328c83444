import type { ConsolePerson } from './console-person.ts';
import type { OneTimeLinks } from './one-time-links.ts';

/**
 * Where `/console` gets a one-time link: the console's links in the store, and the address the
 * console got when it started in this process (none: no console runs here, and `/console` says so).
 */
export interface ConsoleLinkDesk {
  /** A link for this person, or undefined when no console runs in this process. */
  linkFor(person: ConsolePerson): Promise<string | undefined>;
  /** The console started at this address; its links go there. */
  open(origin: string): void;
  close(): void;
  readonly links: OneTimeLinks;
}

export function createConsoleLinkDesk({ links }: { links: OneTimeLinks }): ConsoleLinkDesk {
  let origin: string | undefined;
  return {
    links,
    async linkFor(person) {
      if (origin === undefined) return undefined;
      return `${origin}/sign-in/link/${await links.issue(person)}`;
    },
    open(address) {
      origin = address;
    },
    close() {
      origin = undefined;
    },
  };
}
