import type { RespondFn } from '@slack/bolt';
import { splitCommandResult } from '../../commands/answer-pieces.ts';
import type { CommandResponder, CommandResult } from '../../commands/define-command.ts';
import { type Action, renderCardAsText } from '../../src/delivery/card.ts';
import type { Surface } from '../../src/delivery/surface.ts';
import { userMessageOf } from '../../src/user-facing-error.ts';
import { createAnswerMessage } from './answer-message.ts';
import { createCommandStepCard } from './command-step-card.ts';
import { withFeedbackButtons } from './feedback-surface.ts';
import { markdownToMrkdwn } from './markdown-to-mrkdwn.ts';
import {
  renderActionsBlock,
  renderCardBlocks,
  renderFallbackText,
  renderReplyBlocks,
  type SlackBlock,
} from './render-blocks.ts';
import type { ReplyPlace, SlackDeliveryContext } from './reply-place.ts';
import { createReplySurface } from './reply-surface.ts';
import { explainSlackError, isOutOfChannelError, slackErrorCodeOf } from './slack-errors.ts';
import { slackLimits } from './slack-limits.ts';
import { uploadFiles } from './upload-files.ts';

/**
 * Where a slash command or a button answers on Slack. Public answers go into the channel (or the
 * thread of the clicked message) through the Web API, so they can be edited, carry files and stream;
 * private answers are ephemeral messages through the `response_url`, which works even where the bot
 * is not a member; once it has expired (30 minutes, 5 uses), through `chat.postEphemeral`, and for a
 * person no longer in the channel, in their DM with the app.
 */
export function createChannelResponder({
  place,
  context,
  respond,
  attribution,
  notes,
  openForm,
}: {
  place: ReplyPlace & { recipientUserId: string };
  context: SlackDeliveryContext;
  /** Bolt's `respond` for the command's or action's `response_url`. */
  respond: RespondFn | undefined;
  /** Who asked for what, shown small above the first public answer (`@ada used /imagine …`). */
  attribution?: string;
  /**
   * Sentences for the person gathered while the answer was made (e.g. Slack let /summarize read
   * fewer messages); the next answer shows them and empties the list.
   */
  notes?: string[];
  /** Opens a modal (a slash command's trigger lasts 3 s). */
  openForm?: CommandResponder['openForm'];
}): CommandResponder {
  const answer = createAnswerMessage({ place, context, attribution });
  const thread = place.threadTs === undefined ? {} : { thread_ts: place.threadTs };
  // An answer's messages wait their turn in the bot's outbound queue, like a reply's first post.
  const inTurn = <Result>(method: string, channel: string, run: () => Promise<Result>) =>
    context.outbound.schedule({
      priority: 'first-post',
      target: { teamId: place.teamId, method, channel },
      run,
    });

  const postActions = async (actions: readonly Action[]) => {
    const actionsBlock = renderActionsBlock(actions);
    if (actionsBlock === undefined) return;
    const text = actions.map((action) => action.label).join(' · ');
    await inTurn('chat.postMessage', place.channel, () =>
      place.client.chat.postMessage({ channel: place.channel, ...thread, text, blocks: [actionsBlock] }),
    );
  };
  const takeNotes = () => (notes ?? []).splice(0);
  // One piece of an answer (see splitCommandResult): the notes go under the last, with its buttons.
  const sendPublic = async (result: CommandResult, isLastPiece: boolean) => {
    const files = result.files ?? [];
    const actions = result.actions ?? [];
    const noteBlocks = isLastPiece ? takeNotes().map(noteBlock) : [];
    const contentBlocks = [
      ...(result.text ? renderReplyBlocks(result.text) : []),
      ...(result.card ? renderCardBlocks(result.card, files.length === 0 ? actions : []) : []),
      ...noteBlocks,
    ];
    if (files.length === 0) {
      const actionsBlock = result.card ? undefined : renderActionsBlock(actions);
      await answer.show(notificationText(result), [
        ...contentBlocks,
        ...(actionsBlock ? [actionsBlock] : []),
      ]);
      return;
    }
    // A short text rides on the files as their comment; one longer than a comment holds (uploadFiles
    // keeps it to a section's 3,000 characters) is the answer message, with the files under it.
    const comment = markdownToMrkdwn(result.text ?? '');
    if (result.card || comment.length > commentLength) {
      await answer.show(notificationText(result), contentBlocks);
      await uploadFiles({ place, files, logger: context.logger });
    } else {
      await answer.removeProgress();
      await uploadFiles({ place, files, comment: answer.attributed(comment), logger: context.logger });
    }
    // Buttons go under the files they act on, so they follow the upload (once Slack has shared it) as
    // a message of their own.
    await postActions(actions);
  };
  const sendPrivate = async (result: CommandResult, isLastPiece = true) => {
    await answer.removeProgress();
    const actions = result.actions ?? [];
    const actionsBlock = result.card ? undefined : renderActionsBlock(actions);
    const pieceNotes = isLastPiece ? takeNotes() : [];
    // The text as a `markdown` block, like a public answer: the notification `text` alone is cut short.
    const blocks = [
      ...(result.text ? renderReplyBlocks(result.text) : []),
      ...(result.card ? renderCardBlocks(result.card, actions) : []),
      ...(actionsBlock ? [actionsBlock] : []),
      ...pieceNotes.map(noteBlock),
    ];
    const noted = [notificationText(result), ...pieceNotes.map((note) => markdownToMrkdwn(`_${note}_`))];
    const message = { text: noted.join('\n'), ...(blocks.length > 0 ? { blocks } : {}) };
    if (respond !== undefined) {
      try {
        await respond({ response_type: 'ephemeral', replace_original: false, ...message });
        return;
      } catch (error) {
        // A response_url is good for five answers in 30 minutes; after that, an ephemeral post.
        context.logger.debug({ err: error }, 'slack: response_url refused; posting an ephemeral message');
      }
    }
    try {
      await inTurn('chat.postEphemeral', place.channel, () =>
        place.client.chat.postEphemeral({
          channel: place.channel,
          user: place.recipientUserId,
          ...thread,
          ...message,
        }),
      );
      return;
    } catch (error) {
      if (!isOutOfChannelError(slackErrorCodeOf(error))) throw error;
      context.logger.info(
        { channel: place.channel, error: slackErrorCodeOf(error) },
        'slack: cannot answer privately in the channel; answering in the DM with the app',
      );
    }
    // The person left the channel (or it is gone) while the answer was made: a message to their
    // user id goes to their DM with the app (chat.postMessage, "Channels"), still private.
    const about = `About your command in <#${place.channel}>:`;
    await inTurn('chat.postMessage', place.recipientUserId, () =>
      place.client.chat.postMessage({
        channel: place.recipientUserId,
        text: `${about}\n${message.text}`,
        ...(message.blocks
          ? { blocks: [{ type: 'context', elements: [{ type: 'mrkdwn', text: about }] }, ...message.blocks] }
          : {}),
      }),
    );
  };

  // Progress ticks on a timer while the answer is being made; one call at a time keeps a late tick
  // from posting a second progress line or landing after the answer.
  let queue: Promise<void> = Promise.resolve();
  const inOrder = (task: () => Promise<void>): Promise<void> => {
    const run = queue.then(task);
    queue = run.catch(() => undefined);
    return run;
  };
  let isAnswered = false;
  let surface: Surface | undefined;
  const stepCard = createCommandStepCard({ place, context });
  let isRefusalShown = false;

  return {
    ...(openForm ? { openForm } : {}),
    get surface() {
      // A streamed answer (/chat, Regenerate) fails on its own when the bot may not post here; the
      // person hears why privately, once.
      // A chat reply (/chat, Regenerate, Continue) is rated like any other.
      surface ??= withFeedbackButtons(
        createReplySurface({
          place,
          context,
          onChannelRefused: (error) => {
            if (isRefusalShown) return;
            isRefusalShown = true;
            sendPrivate({ text: `⚠ ${userMessageOf(explainSlackError(error))}` }).catch(
              (sendError: unknown) => {
                context.logger.warn({ err: sendError }, 'slack: could not explain a refused post');
              },
            );
          },
        }),
      );
      return surface;
    },
    // A command's long work (drawing) as a task card where the thread streams natively.
    showStep: (step) => stepCard.show(step),
    progress: async (text) => {
      let ts: string | undefined;
      await inOrder(async () => {
        if (isAnswered) return;
        // Progress is a courtesy: when Slack refuses it, the answer still comes (or says why not).
        ts = await answer.showProgress(text).catch((error: unknown) => {
          context.logger.debug({ err: error }, 'slack: could not show progress');
          return undefined;
        });
      });
      return ts === undefined ? undefined : { id: ts };
    },
    sendDirect: (result) =>
      inOrder(async () => {
        try {
          // The app's DM with the person (conversations.open with `users`, which needs im:write):
          // a file needs a channel id, where a message alone could name the user.
          const opened = await place.client.conversations.open({ users: place.recipientUserId });
          const channel = opened.channel?.id;
          if (channel === undefined) throw new Error('slack: conversations.open named no channel');
          const text = notificationText(result);
          if ((result.files ?? []).length > 0) {
            await uploadFiles({
              place: { client: place.client, channel, threadTs: undefined },
              files: result.files ?? [],
              comment: markdownToMrkdwn(result.text ?? ''),
              logger: context.logger,
            });
          } else {
            await inTurn('chat.postMessage', channel, () => place.client.chat.postMessage({ channel, text }));
          }
        } catch (error) {
          throw explainSlackError(error);
        }
      }),
    send: (result) =>
      inOrder(async () => {
        isAnswered = true;
        // A text past what one message's `markdown` blocks carry goes as several messages, in order.
        const pieces = splitCommandResult({ result, maxLength: slackLimits.replyMessageLength });
        try {
          for (const [index, piece] of pieces.entries()) {
            const isLastPiece = index === pieces.length - 1;
            await (piece.isPrivate ? sendPrivate(piece, isLastPiece) : sendPublic(piece, isLastPiece));
          }
        } catch (error) {
          throw explainSlackError(error);
        }
      }),
  };
}

/**
 * The longest text that goes as the files' comment: a section's 3,000 characters (where uploadFiles
 * cuts a comment) less room for the attribution in front of it.
 */
const commentLength = slackLimits.sectionText - 500;

/** A sentence for the person beside an answer, small under it. */
function noteBlock(note: string): SlackBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: markdownToMrkdwn(`_${note}_`) }] };
}

/** The `text` of a message with blocks: what notifications and screen readers show. */
function notificationText(result: CommandResult): string {
  const markdown = [result.text, result.card ? renderCardAsText(result.card) : undefined]
    .filter(Boolean)
    .join('\n\n');
  return markdown === '' ? '…' : renderFallbackText(markdown);
}
