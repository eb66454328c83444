import type { webApi } from '@slack/bolt';
import type { DocumentAttachment, ImageAttachment } from '../../src/conversation/turn.ts';
import { ImageLoadError } from '../../src/images/image-load-error.ts';
import { UserFacingError } from '../../src/user-facing-error.ts';
import type { HistoryMessage } from './read-channel-history.ts';
import { explainSlackError } from './slack-errors.ts';
import { downloadSlackFile, fileNameOf, isImageFile, type SlackFileObject } from './slack-files.ts';

/** How far back a command looks for an image or file: far enough for "the one above", no further. */
const lookbackMessages = 20;

interface RecentPlace {
  client: webApi.WebClient;
  channel: string;
  threadTs: string | undefined;
  botToken: string;
  maxBytes: number;
}

/**
 * The image an image option (`/imagine … --ref`, `/extract --image`) means on Slack: the most recent
 * image shared in the channel (or thread), found when the command runs. A slash command cannot carry
 * a file, and "the screenshot I just posted" is what people mean; images parley drew count too, so
 * `/imagine … --ref` after an /imagine varies its result.
 */
export function recentImageAttachment(place: RecentPlace): ImageAttachment {
  return {
    name: 'the most recent image',
    async load() {
      const file = await findRecentFile({ place, isWanted: isImageFile, kindName: 'image' });
      return downloadSlackFile({
        file,
        botToken: place.botToken,
        apiUrl: place.client.slackApiUrl,
        maxBytes: place.maxBytes,
      });
    },
  };
}

/** The same for a file option (`/extract --file`): the most recent file that is not an image. */
export function recentFileAttachment(place: RecentPlace): DocumentAttachment {
  let name = 'the most recent file';
  return {
    get name() {
      return name;
    },
    async load() {
      const file = await findRecentFile({ place, isWanted: (each) => !isImageFile(each), kindName: 'file' });
      name = fileNameOf(file);
      return downloadSlackFile({
        file,
        botToken: place.botToken,
        apiUrl: place.client.slackApiUrl,
        maxBytes: place.maxBytes,
      });
    },
  };
}

async function findRecentFile({
  place: { client, channel, threadTs },
  isWanted,
  kindName,
}: {
  place: RecentPlace;
  isWanted: (file: SlackFileObject) => boolean;
  kindName: 'image' | 'file';
}): Promise<SlackFileObject> {
  let messages: HistoryMessage[];
  try {
    const response = threadTs
      ? await client.conversations.replies({ channel, ts: threadTs, limit: 200 })
      : await client.conversations.history({ channel, limit: lookbackMessages });
    messages = (response.messages ?? []) as HistoryMessage[];
  } catch (error) {
    const explained = explainSlackError(error);
    throw UserFacingError.isInstance(explained)
      ? new ImageLoadError({
          message: `could not read the channel for a recent ${kindName}`,
          userMessage: explained.userMessage,
          cause: error,
        })
      : error;
  }
  // History is newest first; a thread's replies are oldest first.
  const newestFirst = threadTs ? [...messages].reverse().slice(0, lookbackMessages) : messages;
  for (const message of newestFirst) {
    const file = (message.files ?? []).find(isWanted);
    if (file) return file;
  }
  throw new ImageLoadError({
    message: `no recent ${kindName} in the channel`,
    userMessage: `I found no ${kindName} in the last ${lookbackMessages} messages here. Share one (paste or upload it), then run the command again.`,
  });
}
