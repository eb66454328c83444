import type { ToolStep } from '../gateway/chat-types.ts';

/**
 * The steps of one reply (tool calls, and parley's own work such as reading a document), as lines above its text where the platform shows none of its own
 * (Discord; Slack without native streaming): each step keeps its line, which changes as the step
 * waits, runs and ends. The lines go when the reply ends; its notes then say how many tools it used.
 */
export interface ToolProgress {
  update(step: ToolStep): void;
  /** A line for each step (`each`), or one for the latest with the count (`latest`); empty before any. */
  render(style: 'each' | 'latest'): string;
}

// A line is a glance at what runs, not the call's arguments in full.
const maxTitleCharacters = 100;
const maxDetailCharacters = 80;

export function createToolProgress(): ToolProgress {
  const steps = new Map<string, ToolStep>();
  return {
    update(step) {
      steps.set(step.id, step);
    },
    render(style) {
      const all = [...steps.values()];
      const latest = all.at(-1);
      if (latest === undefined) return '';
      if (style === 'each') return all.map(lineOf).join('\n');
      if (all.length === 1) return lineOf(latest);
      // Reading a document is not a tool: a count that holds one says steps.
      const isAllTools = all.every((step) => step.kind !== 'work');
      return `${lineOf(latest)} · ${all.length} ${isAllTools ? 'tools' : 'steps'}`;
    },
  };
}

/** "_🔎 searching: tides Brest …_", "_🔎 searching: tides Brest ✓_", "_⚙ write ✗ denied by Ada_". */
function lineOf(step: ToolStep): string {
  const title = escapeMarkdown(clip(step.title, maxTitleCharacters));
  const detail =
    step.detail === undefined ? '' : ` ${escapeMarkdown(clip(step.detail, maxDetailCharacters))}`;
  switch (step.status) {
    case 'waiting':
      return `_⏳ ${title}${detail}_`;
    case 'running':
      return `_${title} …_`;
    case 'complete':
      return `_${title} ✓_`;
    case 'error':
      return `_${title} ✗${detail}_`;
    case 'not-run':
      return `_${title} ⊘${detail}_`;
  }
}

function clip(text: string, maxCharacters: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > maxCharacters ? `${line.slice(0, maxCharacters - 1)}…` : line;
}

// A search query or a file name is the model's text: its `_` or `*` must not end the italics early.
function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_~|[\]<>]/g, (character) => `\\${character}`);
}
