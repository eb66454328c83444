import { SlackApiError } from './slack-api-error.ts';

/**
 * The `chunks` of chat.startStream, chat.appendStream and chat.stopStream, as Slack documents them.
 *
 * chat.appendStream, "Using the chunks parameter" (docs.slack.dev/reference/methods/chat.appendStream):
 * "The chunks parameter can include markdown text chunk objects, task update chunk objects, plan
 * update chunks, or blocks chunks." Their fields, from @slack/types `chunk.ts` (the Node SDK's
 * typing of that page, github.com/slackapi/node-slack-sdk packages/types/src/chunk.ts):
 * - `markdown_text`: `text` (string);
 * - `task_update`: `id`, `title` (strings), `status` one of `pending`, `in_progress`, `complete`,
 *   `error`; optional `details` and `output` (strings) and `sources`, URL source elements;
 * - `plan_update`: `title` (string);
 * - `blocks`: `blocks`, at most 50.
 * A URL source element (docs.slack.dev/reference/block-kit/block-elements/url-source-element) is
 * `{ type: 'url', url, text }`, all three required strings ("Display text for the URL").
 * Slack names no error code for a malformed chunk; the fake answers `invalid_chunks`.
 */
export type StreamChunk =
  | { readonly type: 'markdown_text'; readonly text: string }
  | {
      readonly type: 'task_update';
      readonly id: string;
      readonly title: string;
      readonly status: TaskStatus;
      readonly details?: string;
      readonly output?: string;
      readonly sources?: readonly { type: 'url'; url: string; text: string }[];
    }
  | { readonly type: 'plan_update'; readonly title: string }
  | { readonly type: 'blocks'; readonly blocks: readonly unknown[] };

export type TaskStatus = 'pending' | 'in_progress' | 'complete' | 'error';
const taskStatuses: readonly string[] = ['pending', 'in_progress', 'complete', 'error'];

/**
 * chat.startStream `task_display_mode` (docs.slack.dev/reference/methods/chat.startStream): "timeline
 * task updates render as individual task cards interleaved with streamed text. plan task updates
 * render together in a plan block. Default: timeline. Acceptable values: timeline plan".
 */
export type TaskDisplayMode = 'timeline' | 'plan';

export function taskDisplayModeOf(value: unknown): TaskDisplayMode {
  if (value === undefined) return 'timeline';
  if (value === 'timeline' || value === 'plan') return value;
  throw new SlackApiError('invalid_arguments', {
    response_metadata: {
      messages: [`[ERROR] task_display_mode must be timeline or plan, not ${String(value)}`],
    },
  });
}

/** Checks every chunk's shape (see {@link StreamChunk}); refuses the call at the first bad one. */
export function validChunks(value: unknown): StreamChunk[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalid('chunks must be an array');
  return value.map((chunk, index) => validChunk(chunk, index));
}

function validChunk(chunk: unknown, index: number): StreamChunk {
  if (typeof chunk !== 'object' || chunk === null) throw invalid(`chunks[${index}] is not an object`);
  const fields = chunk as Record<string, unknown>;
  const where = `chunks[${index}]`;
  switch (fields.type) {
    case 'markdown_text':
      requireString(fields, 'text', where);
      return chunk as StreamChunk;
    case 'task_update': {
      requireString(fields, 'id', where);
      requireString(fields, 'title', where);
      if (typeof fields.status !== 'string' || !taskStatuses.includes(fields.status)) {
        throw invalid(`${where}.status must be one of ${taskStatuses.join(', ')}`);
      }
      for (const name of ['details', 'output'] as const) {
        if (fields[name] !== undefined) requireString(fields, name, where);
      }
      if (fields.sources !== undefined) {
        if (!Array.isArray(fields.sources)) throw invalid(`${where}.sources must be an array`);
        fields.sources.forEach((source: unknown, sourceIndex) => {
          const element = (typeof source === 'object' && source !== null ? source : {}) as Record<
            string,
            unknown
          >;
          const at = `${where}.sources[${sourceIndex}]`;
          if (element.type !== 'url') throw invalid(`${at}.type must be url`);
          requireString(element, 'url', at);
          requireString(element, 'text', at);
        });
      }
      return chunk as StreamChunk;
    }
    case 'plan_update':
      requireString(fields, 'title', where);
      return chunk as StreamChunk;
    case 'blocks':
      if (!Array.isArray(fields.blocks) || fields.blocks.length > 50) {
        throw invalid(`${where}.blocks must be an array of at most 50 blocks`);
      }
      return chunk as StreamChunk;
    default:
      throw invalid(`${where}.type ${String(fields.type)} is not a chunk type`);
  }
}

function requireString(fields: Record<string, unknown>, name: string, where: string): void {
  if (typeof fields[name] !== 'string') {
    throw invalid(`${where}.${name} must be a string`);
  }
}

function invalid(message: string): SlackApiError {
  return new SlackApiError('invalid_chunks', { response_metadata: { messages: [`[ERROR] ${message}`] } });
}
