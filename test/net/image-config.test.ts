import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadParleyConfig } from '../../bin/platform-adapters.ts';
import { ConfigError } from '../../src/config.ts';

const environment = { GATEWAY_BASE_URL: 'http://127.0.0.1:9/api/v1', GATEWAY_API_KEY: 'secret-key-123' };
const envFilePath = join(tmpdir(), 'parley-no-such-env-file');

describe('IMAGE_URL_HOSTS and IMAGE_STORE_MAX_BYTES', () => {
  it('default to any public host and 256 MiB', () => {
    const config = loadParleyConfig({ environment, envFilePath });
    expect(config.images.urlHosts).toEqual([]);
    expect(config.images.storeMaxBytes).toBe(256 * 1024 * 1024);
  });

  it('take host names and *.domain patterns, and refuse links or addresses with ports', () => {
    const config = loadParleyConfig({
      environment: { ...environment, IMAGE_URL_HOSTS: 'images.example.com, *.cdn.example.net' },
      envFilePath,
    });
    expect(config.images.urlHosts).toEqual(['images.example.com', '*.cdn.example.net']);
    const refused = (() => {
      try {
        loadParleyConfig({
          environment: { ...environment, IMAGE_URL_HOSTS: 'https://images.example.com/x' },
          envFilePath,
        });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).problems).toEqual([
      'IMAGE_URL_HOSTS.0: must be host names (or *.domain for its subdomains), comma-separated',
    ]);
  });
});
