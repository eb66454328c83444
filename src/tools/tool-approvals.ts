import { randomBytes } from 'node:crypto';
import type { Actor } from '../access/actor.ts';
import type { ApprovalAnswer } from './tool-loop.ts';

/** A question waiting for the asker's Approve or Deny. */
interface PendingApproval {
  readonly askerId: string;
  settle(answer: ApprovalAnswer): void;
}

/**
 * The acting tool calls waiting for their asker's yes, by token, so that the Approve and Deny
 * buttons can answer them. In-process on purpose, like a reply's Stop: the press reaches the process
 * whose tool loop waits.
 */
export interface ToolApprovals {
  /**
   * Registers a question and waits for its answer: approved or denied by the asker, or unanswered
   * when `timeoutMs` passes or `signal` aborts. `show` puts the question in front of the person with
   * the token for its buttons, and is told how it ended so it can say so.
   */
  ask(request: {
    askerId: string;
    timeoutMs: number;
    signal: AbortSignal;
    show(token: string): Promise<{ ended(answer: ApprovalAnswer): Promise<void> }>;
  }): Promise<ApprovalAnswer>;
  /** A press of Approve or Deny: only the asker's counts. */
  answer(request: {
    token: string;
    actor: Actor;
    decision: 'approved' | 'denied';
  }): 'answered' | 'not-yours' | 'gone';
}

export function createToolApprovals(): ToolApprovals {
  const pending = new Map<string, PendingApproval>();
  return {
    async ask({ askerId, timeoutMs, signal, show }) {
      const token = randomBytes(9).toString('base64url');
      let settle: (answer: ApprovalAnswer) => void = () => undefined;
      const answered = new Promise<ApprovalAnswer>((resolve) => {
        settle = resolve;
      });
      pending.set(token, { askerId, settle });
      const timer = setTimeout(
        () =>
          settle({
            decision: 'unanswered',
            detail: `nobody approved it within ${Math.round(timeoutMs / 1000)} s`,
          }),
        timeoutMs,
      );
      timer.unref();
      const onAbort = () => settle({ decision: 'unanswered', detail: 'the reply was stopped' });
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        const shown = await show(token);
        const answer = await answered;
        await shown.ended(answer).catch(() => undefined);
        return answer;
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        pending.delete(token);
      }
    },
    answer({ token, actor, decision }) {
      const question = pending.get(token);
      if (!question) return 'gone';
      if (question.askerId !== actor.id) return 'not-yours';
      question.settle(
        decision === 'approved' ? { decision } : { decision, detail: `${actor.name} denied it` },
      );
      return 'answered';
    },
  };
}
