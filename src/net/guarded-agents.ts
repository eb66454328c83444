import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { Agent, buildConnector } from 'undici';
import { isPublicAddress, rangeOf } from './public-address.ts';

/** A connection refused because the address it would reach (or reached) is not public. */
export class PrivateAddressError extends Error {
  override readonly name = 'PrivateAddressError';
  readonly host: string;
  readonly address: string;
  readonly range: string;
  constructor({ host, address }: { host: string; address: string }) {
    super(`${host} resolves to ${address} (${rangeOf(address)}), not a public address`);
    this.host = host;
    this.address = address;
    this.range = rangeOf(address);
  }
}

/** `dns.lookup`'s shape, so a test can answer names without a DNS server. */
export type Lookup = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** The two connection pools every guarded download goes through. */
export interface GuardedAgents {
  /** Connects only to public addresses: checked when the name is resolved and again once connected. */
  readonly guarded: Agent;
  /** For the origins the operator configured (a local fake, a proxy): no address check. */
  readonly trusted: Agent;
  close(): Promise<void>;
}

const defaultLookup: Lookup = (hostname, options, callback) =>
  dnsLookup(hostname, { ...options, all: true }, callback);

/**
 * Builds the pools. The check sits in the connector, so the address judged is the address connected
 * to: a name that resolved to a public address a moment ago and to 127.0.0.1 now (DNS rebinding) is
 * refused, and so is an IP literal, which Node connects to without any lookup.
 */
export function createGuardedAgents({
  lookup = defaultLookup,
  connectTimeoutMs = 10_000,
}: {
  lookup?: Lookup;
  connectTimeoutMs?: number;
} = {}): GuardedAgents {
  const connect = buildConnector({ timeout: connectTimeoutMs, lookup: publicOnlyLookup(lookup) });
  const guarded = new Agent({
    connect: (options, callback) =>
      connect(options, (error, socket) => {
        if (error || !socket) {
          callback(error ?? new Error('no socket'), null);
          return;
        }
        const address = socket.remoteAddress ?? '';
        if (!isPublicAddress(address)) {
          socket.destroy();
          callback(new PrivateAddressError({ host: options.hostname, address }), null);
          return;
        }
        callback(null, socket);
      }),
  });
  const trusted = new Agent({ connectTimeout: connectTimeoutMs });
  return {
    guarded,
    trusted,
    async close() {
      await Promise.all([guarded.close(), trusted.close()]);
    },
  };
}

// Refuses a name if any of its addresses is not public, before a connection is even tried: a name
// that points partly inside the network is not one to trust with the rest.
function publicOnlyLookup(lookup: Lookup) {
  return (
    hostname: string,
    options: LookupOptions,
    callback: (
      error: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void,
  ): void => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, []);
        return;
      }
      const refused = addresses.find((entry) => !isPublicAddress(entry.address));
      if (refused || addresses.length === 0) {
        callback(new PrivateAddressError({ host: hostname, address: refused?.address ?? 'none' }), []);
        return;
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]?.address ?? '', addresses[0]?.family);
    });
  };
}

let sharedAgents: GuardedAgents | undefined;

/** The process's pools, made on first use. */
export function sharedGuardedAgents(): GuardedAgents {
  sharedAgents ??= createGuardedAgents();
  return sharedAgents;
}
