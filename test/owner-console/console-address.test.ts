import { describe, expect, it } from 'vitest';
import { consoleAddress, isLoopbackHost } from '../../src/console/console-address.ts';

describe('where the console may listen', () => {
  it('listens on this machine over http', () => {
    expect(consoleAddress({ host: '127.0.0.1', port: 8090, publicUrl: undefined })).toEqual({
      isAllowed: true,
      origin: 'http://127.0.0.1:8090',
      isSecure: false,
    });
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('::1')).toBe(true);
    expect(isLoopbackHost('127.0.0.2')).toBe(true);
  });

  it('refuses an address other machines reach unless its public address is https', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'parley.example.org']) {
      const refused = consoleAddress({ host, port: 8090, publicUrl: undefined });
      expect(refused.isAllowed).toBe(false);
      expect(consoleAddress({ host, port: 8090, publicUrl: 'http://parley.example.org' }).isAllowed).toBe(
        false,
      );
    }
    expect(consoleAddress({ host: '0.0.0.0', port: 8090, publicUrl: 'https://parley.example.org' })).toEqual({
      isAllowed: true,
      origin: 'https://parley.example.org',
      isSecure: true,
    });
  });
});
