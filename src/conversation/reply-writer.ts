import { createStreamingWriter, type StreamingWriter } from '../delivery/streaming-writer.ts';
import type { Surface } from '../delivery/surface.ts';
import { createToolProgress, type ToolProgress } from '../delivery/tool-progress.ts';
import type { ToolStep } from '../gateway/chat-types.ts';
import type { Logger } from '../log.ts';
import { measureReply } from '../operations/measure-reply.ts';
import type { EngineDependencies } from './engine-dependencies.ts';
import type { JournalRecord } from './reply-journal.ts';
import type { ReplyRequest } from './reply-types.ts';

/** Where a reply is written: its streaming writer, and how its steps are shown above its text. */
export interface ReplyWriter {
  readonly writer: StreamingWriter;
  /** Shows a step of the reply (reading a document, a tool call) as the surface can. */
  readonly showStep: (step: ToolStep) => void;
}

/**
 * The reply's writer, measured (time to first text, for the operations metrics) and noting its
 * progress in the journal, so a restart can finish a reply its dead process left; the reply's steps,
 * from reading its documents to the model's tool calls, are shown as one list.
 */
export function createReplyWriter({
  dependencies,
  request,
  journalRecord,
  logger,
}: {
  dependencies: EngineDependencies;
  request: ReplyRequest;
  journalRecord: JournalRecord | undefined;
  logger: Logger;
}): ReplyWriter {
  const { turn, surface } = request;
  const writer = measureReply({
    platform: turn.conversationKey.split(':')[0] ?? 'unknown',
    surface,
    createWriter: (measuredSurface) =>
      createStreamingWriter({
        surface: measuredSurface,
        onError: (error) => logger.warn({ err: error }, 'platform call failed while streaming'),
        ...(journalRecord ? { onProgress: (progress) => journalRecord.update(progress) } : {}),
        ...(request.actions ? { actionsWhileStreaming: request.actions.whileStreaming } : {}),
        ...(dependencies.finalWriteRetryWindowMs === undefined
          ? {}
          : { finalWriteRetryWindowMs: dependencies.finalWriteRetryWindowMs }),
      }),
  });
  const progress = createToolProgress();
  return { writer, showStep: (step) => showReplyStep({ surface, writer, progress, step }) };
}

/**
 * A step of the reply (a tool call, or parley reading a document) the way the surface shows it
 * (Slack's task cards, the terminal's dimmed lines), or as lines above the reply's text where it
 * does not: every step so far, so a step the surface could not show (a native stream refused
 * midway) still appears. A step that starts or waits is the platform's status too (Slack's thread
 * status), where the surface has one.
 */
function showReplyStep({
  surface,
  writer,
  progress,
  step,
}: {
  surface: Surface;
  writer: StreamingWriter;
  progress: ToolProgress;
  step: ToolStep;
}): void {
  progress.update(step);
  if (step.status === 'running' || step.status === 'waiting') {
    surface.showStatus?.(step.title).catch(() => undefined);
  }
  const showLines = () => writer.showProgress(progress.render(surface.toolStepLines ?? 'each'));
  if (surface.showToolStep === undefined) {
    showLines();
    return;
  }
  surface.showToolStep(step).then((shown) => {
    if (shown === 'not-shown') showLines();
  }, showLines);
}
