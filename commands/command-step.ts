import type { CommandResponder } from './define-command.ts';

/**
 * A command's long work as one step of the responder's own (`showStep`: on Slack a task card in the
 * thread's native stream), in progress and then complete or in error, ended once whatever ends it.
 * Where the responder shows no steps, `isShown` is false and the command shows its progress lines.
 */
export interface CommandStep {
  readonly isShown: boolean;
  end(status: 'complete' | 'error', detail?: string): Promise<void>;
}

export async function startCommandStep({
  responder,
  id,
  title,
}: {
  responder: CommandResponder;
  /** The step's id within the command's answer. */
  id: string;
  title: string;
}): Promise<CommandStep> {
  const step = { id, kind: 'work', title } as const;
  const shown = await (responder.showStep?.({ ...step, status: 'running' }) ?? Promise.resolve('not-shown'))
    // A step is a courtesy: when it cannot be shown the progress lines do the same.
    .catch(() => 'not-shown' as const);
  const isShown = shown === 'shown';
  let isEnded = false;
  return {
    isShown,
    async end(status, detail) {
      if (!isShown || isEnded) return;
      isEnded = true;
      await responder
        .showStep?.({ ...step, status, ...(detail === undefined ? {} : { detail }) })
        .catch(() => undefined);
    },
  };
}
