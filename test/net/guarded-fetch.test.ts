import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gatewayImagePolicy } from '../../src/gateway/image-generation.ts';
import { createGuardedAgents, type Lookup } from '../../src/net/guarded-agents.ts';
import { BlockedUrlError, guardedFetch } from '../../src/net/guarded-fetch.ts';
import { isPublicAddress } from '../../src/net/public-address.ts';
import { judgeUrl, type UrlPolicy } from '../../src/net/url-policy.ts';
import { type InternalTarget, startInternalTarget } from './internal-target.ts';

// No test here ever lets a request leave the machine: every address a download is allowed to reach
// is the loopback "platform" below, trusted by its exact origin.

/**
 * A server that closes each kept-alive connection once it has answered on it, as a server whose idle
 * timeout ran out does, except that it does so the moment the next request arrives: that request gets
 * a reset (ECONNRESET) before any byte of an answer (issue 22, item 5: 3 of 744 image downloads).
 */
describe('a kept-alive connection the server has reset', () => {
  let server: Server;
  let origin: string;
  let connections = 0;
  let answered = 0;
  const agents = createGuardedAgents();
  const policy = (): UrlPolicy => ({
    purpose: 'test',
    allowedHosts: undefined,
    trustedOrigins: [origin],
    requiresHttps: false,
  });

  beforeAll(async () => {
    server = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
      const socket = request.socket as typeof request.socket & { hasAnswered?: boolean };
      if (socket.hasAnswered === true || request.url?.includes('always-reset')) {
        socket.resetAndDestroy();
        return;
      }
      socket.hasAnswered = true;
      answered += 1;
      response.writeHead(200, { 'content-type': 'image/png' }).end('png bytes');
    });
    server.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    agents.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends a GET reset on a reused connection once more, on a fresh one, and gets the file', async () => {
    const download = async (path: string) => {
      const { response } = await guardedFetch({
        url: `${origin}${path}`,
        policy: policy(),
        timeoutMs: 5_000,
        agents,
      });
      return response.text();
    };
    expect(await download('/first.png')).toBe('png bytes');
    expect(connections).toBe(1);
    // The same connection is reused for the next download, and the server resets it.
    expect(await download('/second.png')).toBe('png bytes');
    expect(connections).toBe(2);
    expect(answered).toBe(2);
  });

  it("gives up when the fresh connection is reset too: that failure is the server's, not a stale connection's", async () => {
    const connectionsBefore = connections;
    await expect(
      guardedFetch({ url: `${origin}/always-reset.png`, policy: policy(), timeoutMs: 5_000, agents }),
    ).rejects.toMatchObject({ code: 'ECONNRESET' });
    // At most the one fresh connection of the retry, and no retry after it.
    expect(connections - connectionsBefore).toBeLessThanOrEqual(1);
  });
});

describe('which addresses are public', () => {
  it.each([
    ['127.0.0.1', false],
    ['10.0.0.7', false],
    ['172.20.1.1', false],
    ['192.168.1.10', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['224.0.0.251', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['fd00::1', false],
    ['fe80::1', false],
    ['ff02::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:169.254.169.254', false],
    ['::ffff:10.0.0.1', false],
    ['8.8.8.8', true],
    ['2606:4700::1111', true],
    ['::ffff:8.8.8.8', true],
  ])('%s → public: %s', (address, isPublic) => {
    expect(isPublicAddress(address)).toBe(isPublic);
  });
});

describe('judging a link against a policy', () => {
  const policy: UrlPolicy = {
    purpose: 'test',
    allowedHosts: ['cdn.example.com', '*.files.example.com'],
    trustedOrigins: ['http://127.0.0.1:8787'],
    requiresHttps: true,
  };
  const verdictOf = (url: string) => judgeUrl(policy, new URL(url));

  it('trusts the configured origin exactly: scheme, host and port', () => {
    expect(verdictOf('http://127.0.0.1:8787/files/a.png').kind).toBe('trusted');
    expect(verdictOf('http://127.0.0.1:8788/files/a.png')).toMatchObject({ reason: 'private-address' });
    expect(verdictOf('https://127.0.0.1:8787/files/a.png')).toMatchObject({ reason: 'private-address' });
  });

  it('refuses private, link-local and mapped addresses written as IP literals', () => {
    for (const url of [
      'https://169.254.169.254/latest/meta-data/',
      'https://10.1.2.3/x.png',
      'https://[::1]/x.png',
      'https://[::ffff:7f00:1]/x.png',
      'https://[fd00::5]/x.png',
      'https://100.100.100.200/x.png',
    ]) {
      expect(verdictOf(url), url).toMatchObject({ kind: 'refused', reason: 'private-address' });
    }
  });

  it('keeps to the allowed hosts, over https, without credentials in the link', () => {
    expect(verdictOf('https://cdn.example.com/a.png').kind).toBe('guarded');
    expect(verdictOf('https://eu.files.example.com/a.png').kind).toBe('guarded');
    expect(verdictOf('https://files.example.com/a.png')).toMatchObject({ reason: 'host-not-allowed' });
    expect(verdictOf('https://cdn.example.com.evil.test/a.png')).toMatchObject({
      reason: 'host-not-allowed',
    });
    expect(verdictOf('http://cdn.example.com/a.png')).toMatchObject({ reason: 'not-https' });
    expect(verdictOf('https://user:pw@cdn.example.com/a.png')).toMatchObject({ reason: 'host-not-allowed' });
    expect(verdictOf('file:///etc/passwd')).toMatchObject({ reason: 'not-http' });
  });
});

describe('guarded downloads', () => {
  let internal: InternalTarget;
  let platform: Server;
  let platformOrigin: string;
  const agents = createGuardedAgents({
    // Names a test uses, answered without a DNS server: one that points inside the network.
    lookup: ((hostname, _options, callback) => {
      if (hostname === 'rebound.test') callback(null, [{ address: '127.0.0.1', family: 4 }]);
      else if (hostname === 'split.test')
        callback(null, [
          { address: '192.0.2.1', family: 4 },
          { address: '10.0.0.8', family: 4 },
        ]);
      else callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    }) satisfies Lookup,
  });
  const policyFor = (): UrlPolicy => ({
    purpose: 'test',
    allowedHosts: undefined,
    trustedOrigins: [platformOrigin],
    requiresHttps: false,
  });
  const refusalOf = async (url: string) =>
    guardedFetch({ url, policy: policyFor(), timeoutMs: 5_000, agents }).then(
      () => undefined,
      (error: unknown) => error,
    );

  beforeAll(async () => {
    internal = await startInternalTarget();
    platform = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://platform');
      const location = url.searchParams.get('to');
      if (url.pathname === '/loop') {
        response.writeHead(302, { location: '/loop' }).end();
      } else if (location) {
        response.writeHead(302, { location }).end();
      } else {
        response.writeHead(200, { 'content-type': 'text/plain' }).end('platform file');
      }
    });
    await new Promise<void>((resolve) => platform.listen(0, '127.0.0.1', resolve));
    platformOrigin = `http://127.0.0.1:${(platform.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    expect(internal.connectionCount).toBe(0);
  });
  afterAll(async () => {
    agents.close();
    await internal.close();
    platform.closeAllConnections();
    await new Promise<void>((resolve) => platform.close(() => resolve()));
  });

  it('fetches from the trusted origin and follows its redirects within it', async () => {
    const { response, redirectCount } = await guardedFetch({
      url: `${platformOrigin}/start?to=${encodeURIComponent(`${platformOrigin}/file`)}`,
      policy: policyFor(),
      timeoutMs: 5_000,
      agents,
    });
    expect(await response.text()).toBe('platform file');
    expect(redirectCount).toBe(1);
  });

  it('refuses a loopback link without connecting to it', async () => {
    const error = await refusalOf(`${internal.origin}/latest/meta-data/`);
    expect(error).toBeInstanceOf(BlockedUrlError);
    expect(error).toMatchObject({ reason: 'private-address' });
  });

  it('refuses a redirect from the trusted origin to an internal address', async () => {
    const error = await refusalOf(`${platformOrigin}/a.png?to=${encodeURIComponent(`${internal.origin}/x`)}`);
    expect(error).toMatchObject({ reason: 'private-address', host: `127.0.0.1:${internal.port}` });
  });

  it('refuses a name that resolves to a private address, at connect time', async () => {
    expect(await refusalOf(`http://rebound.test:${internal.port}/x.png`)).toMatchObject({
      reason: 'private-address',
    });
    // One private address among the answers is enough to refuse the name.
    expect(await refusalOf(`http://split.test:${internal.port}/x.png`)).toMatchObject({
      reason: 'private-address',
    });
  });

  it('checks https connections the same way', async () => {
    expect(await refusalOf(`https://rebound.test:${internal.port}/x.png`)).toMatchObject({
      reason: 'private-address',
    });
  });

  it('refuses localhost by name, as the machine resolves it', async () => {
    const error = await guardedFetch({
      url: `http://localhost:${internal.port}/x.png`,
      policy: policyFor(),
      timeoutMs: 5_000,
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ reason: 'private-address' });
  });

  it('asks for the headers of every hop, so a credential survives a redirect between its own hosts', async () => {
    // Two origins of one platform (Slack's file hosts, say): fetch's own redirect handling drops
    // Authorization on the cross-origin hop; parley asks headersFor again for the second host.
    const seen: Array<string | undefined> = [];
    const second = createServer((request, response) => {
      seen.push(request.headers.authorization);
      response.writeHead(200, { 'content-type': 'text/plain' }).end('second host');
    });
    await new Promise<void>((resolve) => second.listen(0, '127.0.0.1', resolve));
    const secondOrigin = `http://127.0.0.1:${(second.address() as AddressInfo).port}`;
    const policy = { ...policyFor(), trustedOrigins: [platformOrigin, secondOrigin] };
    const { response } = await guardedFetch({
      url: `${platformOrigin}/a?to=${encodeURIComponent(`${secondOrigin}/b`)}`,
      policy,
      headersFor: (url): Record<string, string> =>
        policy.trustedOrigins.includes(url.origin) ? { authorization: 'Bearer t0ken' } : {},
      timeoutMs: 5_000,
      agents,
    });
    expect(await response.text()).toBe('second host');
    expect(seen).toEqual(['Bearer t0ken']);
    second.closeAllConnections();
    await new Promise<void>((resolve) => second.close(() => resolve()));
  });

  it('stops after the redirect limit', async () => {
    const error = await refusalOf(`${platformOrigin}/loop`);
    expect(error).toMatchObject({ reason: 'too-many-redirects' });
  });
});

describe('the gateway’s image links', () => {
  it('trust the gateway’s own origin and, with IMAGE_URL_HOSTS, only those hosts', () => {
    const open = gatewayImagePolicy({ baseUrl: 'http://127.0.0.1:8787/api/v1', imageUrlHosts: [] });
    expect(judgeUrl(open, new URL('http://127.0.0.1:8787/files/img-1.png')).kind).toBe('trusted');
    expect(judgeUrl(open, new URL('https://images.example.com/a.png')).kind).toBe('guarded');
    expect(judgeUrl(open, new URL('http://127.0.0.1:9000/a.png'))).toMatchObject({
      reason: 'private-address',
    });
    expect(judgeUrl(open, new URL('http://169.254.169.254/latest/'))).toMatchObject({
      reason: 'private-address',
    });

    const listed = gatewayImagePolicy({
      baseUrl: 'https://gateway.example/api/v1',
      imageUrlHosts: ['*.cdn.example.net'],
    });
    expect(judgeUrl(listed, new URL('https://eu.cdn.example.net/a.png')).kind).toBe('guarded');
    expect(judgeUrl(listed, new URL('https://gateway.example/files/a.png')).kind).toBe('trusted');
    expect(judgeUrl(listed, new URL('https://other.example/a.png'))).toMatchObject({
      reason: 'host-not-allowed',
    });
  });
});
