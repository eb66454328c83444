import { markdownToMrkdwn } from './markdown-to-mrkdwn.ts';
import { renderTextSections, type SlackBlock } from './render-blocks.ts';
import type { ReplyPlace, SlackDeliveryContext } from './reply-place.ts';

/**
 * The public message a command answers with: it starts as a progress line ("🎨 drawing…") and the
 * answer replaces it, so the channel gets one message, not two. The first public message also says
 * who asked, since Slack shows nobody but the person that a command was run.
 */
export interface AnswerMessage {
  /** Shows or replaces the progress line; resolves with its `ts` once it is posted. */
  showProgress(markdown: string): Promise<string | undefined>;
  /** Puts the answer in place of the progress line, or posts it when there is none. */
  show(text: string, blocks: SlackBlock[]): Promise<void>;
  /** Removes the progress line, when the answer goes elsewhere (files, a private message). */
  removeProgress(): Promise<void>;
  /** A comment for files posted instead of the answer message, with the attribution if still due. */
  attributed(mrkdwn: string): string;
}

export function createAnswerMessage({
  place,
  context,
  attribution,
}: {
  place: ReplyPlace;
  context: SlackDeliveryContext;
  /** mrkdwn, e.g. `<@U…> used \`/imagine a cat\``. */
  attribution: string | undefined;
}): AnswerMessage {
  const { client, channel } = place;
  const thread = place.threadTs === undefined ? {} : { thread_ts: place.threadTs };
  const attributionBlocks: SlackBlock[] = attribution
    ? [{ type: 'context', elements: [{ type: 'mrkdwn', text: attribution }] }]
    : [];
  let progress: { ts: string; isAttributed: boolean } | undefined;
  let isAttributed = attribution === undefined;

  const postAttributed = async (text: string, blocks: SlackBlock[]): Promise<string | undefined> => {
    const withAttribution = isAttributed ? blocks : [...attributionBlocks, ...blocks];
    isAttributed = true;
    const response = await context.outbound.schedule({
      priority: 'first-post',
      target: { teamId: place.teamId, method: 'chat.postMessage', channel },
      run: () => client.chat.postMessage({ channel, ...thread, text, blocks: withAttribution }),
    });
    return typeof response.ts === 'string' ? response.ts : undefined;
  };
  const update = (ts: string, text: string, blocks: SlackBlock[], priority: 'edit' | 'final-write') =>
    context.outbound.schedule({
      priority,
      target: { teamId: place.teamId, method: 'chat.update', channel },
      run: () => client.chat.update({ channel, ts, text, blocks }),
    });

  return {
    async showProgress(markdown) {
      const text = markdownToMrkdwn(markdown);
      if (progress === undefined) {
        const willAttribute = !isAttributed;
        const ts = await postAttributed(text, renderTextSections(markdown));
        if (ts !== undefined) progress = { ts, isAttributed: willAttribute };
        return ts;
      }
      const blocks = renderTextSections(markdown);
      await update(
        progress.ts,
        text,
        progress.isAttributed ? [...attributionBlocks, ...blocks] : blocks,
        'edit',
      );
      return progress.ts;
    },
    async show(text, blocks) {
      const replaced = progress;
      progress = undefined;
      if (replaced === undefined) {
        await postAttributed(text, blocks);
        return;
      }
      await update(
        replaced.ts,
        text,
        replaced.isAttributed ? [...attributionBlocks, ...blocks] : blocks,
        'final-write',
      );
    },
    async removeProgress() {
      const removed = progress;
      progress = undefined;
      if (removed === undefined) return;
      // What replaces the progress line takes over its attribution.
      if (removed.isAttributed) isAttributed = false;
      await client.chat.delete({ channel, ts: removed.ts }).catch((error: unknown) => {
        context.logger.debug({ err: error }, 'slack: could not remove a progress message');
      });
    },
    attributed(mrkdwn) {
      if (isAttributed || attribution === undefined) return mrkdwn;
      isAttributed = true;
      return `${attribution}\n${mrkdwn}`;
    },
  };
}
