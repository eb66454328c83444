import { randomBytes } from 'node:crypto';
import type { Actor } from '../access/actor.ts';
import type { ConversationKey } from '../conversation/turn.ts';
import type { ToolCall } from '../gateway/chat-types.ts';
import { type ApprovalWait, startApprovalWait } from '../tracing/approval-spans.ts';

/** How a question ended, as its message says: approved (the call runs), or not run and why. */
export type ApprovalEnding =
  | { readonly decision: 'approved'; readonly approverName: string }
  | { readonly decision: 'not-run'; readonly detail: string };

/**
 * An acting tool call put to its asker. It keeps who asked and where, never their authority: an
 * Approve asks the gate again with the facts of that moment.
 */
export interface PendingApproval {
  readonly askerId: string;
  readonly conversationKey: ConversationKey;
  /** The call as the model made it: `arguments` is the exact text the question showed. */
  readonly call: ToolCall;
  /** Says on the question how it ended (and takes its buttons away). */
  ended(ending: ApprovalEnding): Promise<void>;
}

/** What came of a press of Approve or Deny. */
export type ApprovalPress =
  | { readonly kind: 'taken'; readonly approval: PendingApproval }
  | { readonly kind: 'not-yours' }
  /** Answered already (a second press), timed out, or asked by a process that has since stopped. */
  | { readonly kind: 'gone' };

/**
 * The acting tool calls waiting for their asker's yes, by token, so that the Approve and Deny
 * buttons can answer them. Nobody waits on them: the reply that asked has ended, and an Approve
 * runs the call in a reply of its own. In-process on purpose, like a reply's Stop: the press
 * reaches the process that asked (after a restart the question is gone and a press says so).
 */
export interface ToolApprovals {
  /**
   * Registers a question and shows it (`show` gets the token for its buttons); it stays open for
   * `timeoutMs`, then ends unanswered and nothing runs. Rejects when it could not be shown.
   */
  ask(request: {
    askerId: string;
    conversationKey: ConversationKey;
    call: ToolCall;
    timeoutMs: number;
    show(token: string): Promise<{ ended(ending: ApprovalEnding): Promise<void> }>;
  }): Promise<void>;
  /**
   * Takes the question a press of Approve or Deny answers, once: only the asker's press takes it,
   * and a later press finds it gone.
   */
  take(request: { token: string; actor: Actor }): ApprovalPress;
  /** How many questions are open (for tests and shutdown logs). */
  pendingCount(): number;
}

export function createToolApprovals(): ToolApprovals {
  const pending = new Map<string, PendingApproval & { timer: NodeJS.Timeout; wait: ApprovalWait }>();
  return {
    async ask({ askerId, conversationKey, call, timeoutMs, show }) {
      const token = randomBytes(9).toString('base64url');
      const wait = startApprovalWait({ toolName: call.name, callId: call.id });
      let showing: Promise<{ ended(ending: ApprovalEnding): Promise<void> }> | undefined;
      const endQuestion = async (ending: ApprovalEnding) => (await showing)?.ended(ending);
      const timer = setTimeout(() => {
        if (!pending.delete(token)) return;
        wait.end('timed-out');
        const detail = `nobody approved it within ${Math.round(timeoutMs / 1000)} s`;
        endQuestion({ decision: 'not-run', detail }).catch(() => undefined);
      }, timeoutMs);
      timer.unref();
      // Registered before it is shown, so that a press as fast as the post finds it.
      pending.set(token, { askerId, conversationKey, call, timer, wait, ended: endQuestion });
      try {
        showing = show(token);
        await showing;
      } catch (error) {
        clearTimeout(timer);
        pending.delete(token);
        throw error;
      }
    },
    take({ token, actor }) {
      const question = pending.get(token);
      if (!question) return { kind: 'gone' };
      if (question.askerId !== actor.id) return { kind: 'not-yours' };
      pending.delete(token);
      clearTimeout(question.timer);
      // The wait ends in the press's trace, beside the reply that runs the call (approval-spans.ts).
      question.wait.end('pressed');
      const { timer: _timer, wait: _wait, ...approval } = question;
      return { kind: 'taken', approval };
    },
    pendingCount: () => pending.size,
  };
}
