import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadParleyConfig } from '../../bin/platform-adapters.ts';
import { ConfigError } from '../../src/config.ts';

const missingEnvFile = join(tmpdir(), 'parley-no-such-env-file');
const required = { GATEWAY_BASE_URL: 'http://127.0.0.1:9/api/v1', GATEWAY_API_KEY: 'secret-key-123' };

describe('the settings of documents, links and web search', () => {
  it('have defaults: documents read, links read, no search', () => {
    const config = loadParleyConfig({ environment: required, envFilePath: missingEnvFile });
    expect(config.documents).toMatchObject({
      maxBytes: 20 * 1024 * 1024,
      maxPages: 100,
      parseMaxMemoryMb: 256,
    });
    expect(config.links).toMatchObject({ mode: 'on', privateOrigins: [] });
    expect(config.links.userAgent).toMatch(/^parley\//);
    expect(config.search).toBeUndefined();
  });

  it('take origins and a search URL, whose password is scrubbed from logs like a token', () => {
    const config = loadParleyConfig({
      environment: {
        ...required,
        LINK_READING: 'mention-only',
        LINK_PRIVATE_ORIGINS: 'http://wiki.internal:8080/some/page, https://intranet.example',
        SEARCH_URL: 'https://parley:hunter22@search.example/',
      },
      envFilePath: missingEnvFile,
    });
    expect(config.links.mode).toBe('mention-only');
    expect(config.links.privateOrigins).toEqual(['http://wiki.internal:8080', 'https://intranet.example']);
    expect(config.search).toEqual({
      url: 'https://parley:hunter22@search.example',
      maxResults: 5,
      timeoutMs: 10_000,
    });
    expect(config.secrets).toContain('hunter22');
  });

  it('refuse wrong values with a clear line each', () => {
    let problems: readonly string[] = [];
    try {
      loadParleyConfig({
        environment: { ...required, LINK_READING: 'sometimes', SEARCH_URL: 'searx', DOCUMENT_MAX_PAGES: '0' },
        envFilePath: missingEnvFile,
      });
    } catch (error) {
      if (error instanceof ConfigError) problems = error.problems;
    }
    expect(problems).toEqual(
      expect.arrayContaining([
        'LINK_READING: must be on, off or mention-only',
        'SEARCH_URL: is not a URL: "searx"; expected one like http://localhost:8080',
        expect.stringMatching(/^DOCUMENT_MAX_PAGES: /),
      ]),
    );
  });
});
