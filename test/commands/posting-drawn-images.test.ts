import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandResponder, CommandResult } from '../../commands/define-command.ts';
import { drawImages } from '../../commands/draw-images.ts';
import type { PlatformFailure } from '../../src/delivery/surface.ts';
import { type ConsoleUnderTest, startConsoleUnderTest } from '../support/console-under-test.ts';

/**
 * Drawn images are billed once the gateway has drawn them, and image generation is never retried,
 * so posting them is a final write: a burst of 503s from the platform must not lose them, and a post
 * that cannot land must not leave "🎨 drawing 1 image…" as the last word.
 */
let under: ConsoleUnderTest;
beforeEach(async () => {
  under = await startConsoleUnderTest();
});
afterEach(() => under.close());

class UploadRefused extends Error {
  readonly isPassing: boolean;
  constructor(isPassing: boolean) {
    super(isPassing ? '503 Service Unavailable' : '413 Request Entity Too Large');
    this.isPassing = isPassing;
  }
}

/** A responder whose posts with files fail `failures` times first; it keeps the progress line's place. */
function flakyResponder({ failures, isPassing }: { failures: number; isPassing: boolean }) {
  const sent: CommandResult[] = [];
  let shown = '';
  let remainingFailures = failures;
  let postCount = 0;
  const responder: CommandResponder = {
    surface: {
      limits: { maxMessageLength: 2_000, minEditIntervalMs: 0 },
      post: async () => ({ id: 'm1' }),
      edit: async () => undefined,
      classifyFailure: (error): PlatformFailure => ({
        isRetryable: error instanceof UploadRefused && error.isPassing,
      }),
    },
    async progress(text) {
      shown = text;
      return { id: 'm1' };
    },
    async send(result) {
      if (result.files !== undefined && result.files.length > 0) {
        postCount += 1;
        if (remainingFailures > 0) {
          remainingFailures -= 1;
          throw new UploadRefused(isPassing);
        }
      }
      sent.push(result);
      shown = result.text ?? '';
    },
  };
  return { responder, sent, shown: () => shown, postCount: () => postCount };
}

const user = { id: 'ada', name: 'ada', isAdmin: false, roleIds: [], context: 'server' as const };
const request = {
  conversationKey: 'console:local:ada',
  prompt: 'a lighthouse',
  count: 1,
  aspectRatio: undefined,
  outputFormat: 'png' as const,
  references: [],
};

describe('posting drawn images', () => {
  it('is tried again after passing failures until the images are posted', async () => {
    const { responder, sent, postCount } = flakyResponder({ failures: 2, isPassing: true });
    await drawImages({
      services: under.services,
      user,
      responder,
      request,
      signal: new AbortController().signal,
    });
    expect(postCount()).toBe(3);
    expect(sent.map((result) => result.files?.length)).toEqual([1]);
  });

  it('that cannot land says so in place of the progress line', async () => {
    const { responder, shown, postCount } = flakyResponder({ failures: 1, isPassing: false });
    await drawImages({
      services: under.services,
      user,
      responder,
      request,
      signal: new AbortController().signal,
    });
    expect(postCount()).toBe(1);
    expect(shown()).toBe('⚠ I drew the image but could not post it here. Please try again.');
    expect(under.logOutput()).toContain('could not post the drawn images');
  });
});
