import type { webApi } from '@slack/bolt';
import type { ToolStep } from '../../src/gateway/chat-types.ts';

type StreamChunk = NonNullable<webApi.ChatAppendStreamArguments['chunks']>[number];
export type TaskUpdateChunk = Extract<StreamChunk, { type: 'task_update' }>;
export type PlanUpdateChunk = Extract<StreamChunk, { type: 'plan_update' }>;

/**
 * How a reply's tool steps render in a stream that starts with one (chat.startStream
 * `task_display_mode`): together in a plan block, above the answer that follows. A stream that
 * starts with text keeps Slack's default, `timeline`, where a task card sits where it happened.
 */
export const toolStepDisplayMode = 'plan';

// Slack shows a task's details and output under its title; a short line is all they are for.
const maxDetailCharacters = 200;
// The links a search found: enough to see where the answer comes from, not the whole result page.
const maxSources = 10;

/**
 * A step (a tool call, or parley's own work) as a `task_update` chunk (chat.appendStream, "task_update chunks"): the same id from
 * start to end, `in_progress` while it runs, `pending` while it waits for the asker's yes, `complete`
 * or `error` at the end (a call that was not run ends as an error, with why), and the links a
 * search found as the card's `sources`.
 */
export function taskUpdateOf(step: ToolStep): TaskUpdateChunk {
  const sources = (step.sources ?? []).slice(0, maxSources).map((source) => ({
    type: 'url' as const,
    url: source.url,
    text: source.title.trim() === '' ? source.url : source.title,
  }));
  return {
    type: 'task_update',
    id: step.id,
    title: step.title,
    status: taskStatusOf(step.status),
    ...(step.detail === undefined ? {} : { details: step.detail.slice(0, maxDetailCharacters) }),
    ...(sources.length > 0 ? { sources } : {}),
  };
}

function taskStatusOf(status: ToolStep['status']): TaskUpdateChunk['status'] {
  switch (status) {
    case 'waiting':
      return 'pending';
    case 'running':
      return 'in_progress';
    case 'complete':
      return 'complete';
    case 'error':
    case 'not-run':
      return 'error';
  }
}

/**
 * The plan's title once a reply runs more than one step ("multi-step work"), and at its end: how
 * many tools it used, or how many steps when some were parley's own work (reading a document).
 */
export function planUpdateOf({
  steps,
  tools,
  isOver,
}: {
  steps: number;
  tools: number;
  isOver: boolean;
}): PlanUpdateChunk {
  if (!isOver) return { type: 'plan_update', title: `Working: ${steps} steps` };
  return { type: 'plan_update', title: tools === steps ? `Used ${steps} tools` : `Done: ${steps} steps` };
}
