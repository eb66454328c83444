import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
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

/** `dns.lookup` with `all: true`, so a test can answer names without a DNS server. */
export type Lookup = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** The connection pools every guarded download goes through, per scheme. */
export interface GuardedAgents {
  /** Connect only to public addresses: checked when the name is resolved and again once connected. */
  readonly guarded: { readonly http: http.Agent; readonly https: https.Agent };
  /** For the origins the operator configured (a local fake, a proxy): no address check. */
  readonly trusted: { readonly http: http.Agent; readonly https: https.Agent };
  close(): void;
}

const defaultLookup: Lookup = (hostname, options, callback) =>
  dnsLookup(hostname, { ...options, all: true }, callback);

/**
 * Builds the pools on Node's own http and https agents (not undici: loading a second undici
 * replaces the process's global fetch dispatcher, which other libraries share). The address check
 * sits in the connection itself, so the address judged is the address connected to: a name that
 * resolved to a public address a moment ago and to 127.0.0.1 now (DNS rebinding) is refused at its
 * lookup, and every socket is checked again on connect, before a byte of the request is sent.
 */
export function createGuardedAgents({ lookup = defaultLookup }: { lookup?: Lookup } = {}): GuardedAgents {
  const guardedOptions = { keepAlive: true, lookup: publicOnlyLookup(lookup) };
  const guarded = {
    http: guardSockets(new http.Agent(guardedOptions)),
    https: guardSockets(new https.Agent(guardedOptions)),
  };
  const trusted = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  return {
    guarded,
    trusted,
    close() {
      for (const agent of [guarded.http, guarded.https, trusted.http, trusted.https]) agent.destroy();
    },
  };
}

// Wraps the agent's socket factory: the check runs on 'connect', ahead of the request's own
// listeners, and destroys a socket whose peer is not public.
function guardSockets<Agent extends http.Agent>(agent: Agent): Agent {
  const createConnection = (
    agent as unknown as { createConnection: (...args: unknown[]) => Duplex }
  ).createConnection.bind(agent);
  (agent as unknown as { createConnection: (...args: unknown[]) => Duplex }).createConnection = (
    options: unknown,
    ...rest: unknown[]
  ) => {
    const socket = createConnection(options, ...rest) as Duplex & { remoteAddress?: string };
    const host = String((options as { host?: string }).host ?? '');
    socket.prependOnceListener('connect', () => {
      const address = socket.remoteAddress ?? '';
      if (!isPublicAddress(address)) socket.destroy(new PrivateAddressError({ host, address }));
    });
    return socket;
  };
  return agent;
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
