import { describe, expect, it } from 'vitest';
import { createConsoleSurface } from '../../adapters/console/console-surface.ts';
import { createTerminalMarkdown } from '../../adapters/console/terminal-markdown.ts';
import { createStreamingWriter } from '../../src/delivery/streaming-writer.ts';
import { createVirtualScreen } from '../support/virtual-screen.ts';

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

  it('at a terminal, prints a streamed reply rendered: no Markdown marks, no fence, the code once', async () => {
    const screen = createVirtualScreen({ columns: 60 });
    const render = createTerminalMarkdown({ width: 60 });
    const surface = createConsoleSurface({
      write: screen.write,
      outputDirectory: 'unused',
      markdown: { render, columns: () => 60, rows: () => 24 },
    });
    const writer = createStreamingWriter({ surface });
    writer.showWaiting('_⏳ still waiting_');
    await new Promise((resolve) => setTimeout(resolve, 10));
    const reply = 'Here is **the** plan:\n\n```ts\nconst a = 1;\nconst b = 2;\n```\n\n- first\n- _second_';
    for (const piece of reply.match(/.{1,5}/gs) ?? []) {
      writer.append(piece);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await writer.finish({ finishReason: 'stop' });
    surface.flush();
    expect(screen.text()).toBe(
      'Here is the plan:\n\n  const a = 1;\n  const b = 2;\n\n  * first\n  * second',
    );
  });
});
