import type { webApi } from '@slack/bolt';
import { ImageLoadError } from '../../src/conversation/image-intake.ts';
import type { ImageAttachment } from '../../src/conversation/turn.ts';
import type { HistoryMessage } from './read-channel-history.ts';
import { explainSlackError } from './slack-errors.ts';
import { downloadSlackFile, isImageFile } from './slack-files.ts';

/** How far back a command looks for an image: far enough for "the screenshot above", no further. */
const lookbackMessages = 20;

/**
 * The image an image option (`/imagine … --ref`, `/extract --image`) means on Slack: the most recent
 * image shared in the channel (or thread), found when the command runs. A slash command cannot carry
 * a file, and "the screenshot I just posted" is what people mean; images parley drew count too, so
 * `/imagine … --ref` after an /imagine varies its result.
 */
export function recentImageAttachment({
  client,
  channel,
  threadTs,
  botToken,
  maxBytes,
}: {
  client: webApi.WebClient;
  channel: string;
  threadTs: string | undefined;
  botToken: string;
  maxBytes: number;
}): ImageAttachment {
  return {
    name: 'the most recent image',
    async load() {
      let messages: HistoryMessage[];
      try {
        const response = threadTs
          ? await client.conversations.replies({ channel, ts: threadTs, limit: 200 })
          : await client.conversations.history({ channel, limit: lookbackMessages });
        messages = (response.messages ?? []) as HistoryMessage[];
      } catch (error) {
        const explained = explainSlackError(error);
        throw explained instanceof Error && 'userMessage' in explained
          ? new ImageLoadError({
              message: 'could not read the channel for a reference image',
              userMessage: String(explained.userMessage),
              cause: error,
            })
          : error;
      }
      // History is newest first; a thread's replies are oldest first.
      const newestFirst = threadTs ? [...messages].reverse().slice(0, lookbackMessages) : messages;
      for (const message of newestFirst) {
        const image = (message.files ?? []).find(isImageFile);
        if (image) return downloadSlackFile({ file: image, botToken, apiUrl: client.slackApiUrl, maxBytes });
      }
      throw new ImageLoadError({
        message: 'no recent image in the channel',
        userMessage: `I found no image in the last ${lookbackMessages} messages here. Share one (paste or upload it), then run the command again.`,
      });
    },
  };
}
