import { describe, expect, it } from 'vitest';
import { createConsoleSurface } from '../../adapters/console/console-surface.ts';
import { createStreamingWriter } from '../../src/delivery/streaming-writer.ts';

function terminal() {
  let screen = '';
  const surface = createConsoleSurface({
    write: (text) => {
      screen += text;
    },
    outputDirectory: 'unused',
  });
  return { surface, screen: () => screen };
}

describe('console surface', () => {
  it('prints a streamed reply with a code block exactly once, without stray fences', async () => {
    const { surface, screen } = terminal();
    const writer = createStreamingWriter({ surface });
    const reply = 'Here:\n\n```ts\nconst a = 1;\nconst b = 2;\n```\nDone.';
    for (const piece of reply.match(/.{1,4}/gs) ?? []) {
      writer.append(piece);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await writer.finish({ finishReason: 'stop' });
    surface.flush();
    expect(screen()).toBe(reply);
  });

  it('prints the held-back closing fence when the reply ends inside a code block', async () => {
    const { surface, screen } = terminal();
    const message = await surface.post('```py\nprint(1)\n```');
    expect(screen()).toBe('```py\nprint(1)');
    await surface.edit(message, '```py\nprint(1)\nprint(2)\n```');
    surface.flush();
    expect(screen()).toBe('```py\nprint(1)\nprint(2)\n```');
  });

  it('reprints on a new line when an edit changes text already printed', async () => {
    const { surface, screen } = terminal();
    const message = await surface.post('draft one');
    await surface.edit(message, 'final two');
    expect(screen()).toBe('draft one\nfinal two');
  });
});
