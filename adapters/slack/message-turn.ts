import type { webApi } from '@slack/bolt';
import {
  type ConversationKey,
  type DocumentAttachment,
  type ImageAttachment,
  type IncomingTurn,
  textOfWordlessMessage,
} from '../../src/conversation/turn.ts';
import {
  downloadSlackFile,
  fileNameOf,
  isImageFile,
  type SlackFileObject,
  slackImageAttachment,
} from './slack-files.ts';
import { resolveSlackText } from './slack-text.ts';
import type { UserDirectory } from './user-directory.ts';

/** The fields of a `message` or `app_mention` event that parley reads. */
export interface SlackMessageEvent {
  readonly type: string;
  readonly subtype?: string;
  readonly channel: string;
  readonly channel_type?: string;
  readonly user?: string;
  readonly bot_id?: string;
  readonly text?: string;
  readonly ts: string;
  readonly thread_ts?: string;
  readonly files?: readonly SlackFileObject[];
}

/**
 * The turn for a message the bot answers: text with mentions resolved to names, image files, and
 * every other file as a document (PDF, Word, Excel, CSV, text), all loaded later by the engine with
 * the bot token.
 */
export async function buildTurnFromEvent({
  event,
  conversationKey,
  client,
  botUserId,
  botToken,
  maxImageBytes,
  maxDocumentBytes,
  directory,
}: {
  event: SlackMessageEvent;
  conversationKey: ConversationKey;
  client: webApi.WebClient;
  botUserId: string | undefined;
  botToken: string;
  maxImageBytes: number;
  maxDocumentBytes: number;
  directory: UserDirectory;
}): Promise<Omit<IncomingTurn, 'actor'>> {
  const authorId = event.user ?? event.bot_id ?? 'unknown';
  const nameOfUser = async (userId: string) => (await directory.lookUp({ client, userId })).name;
  const [author, text] = await Promise.all([
    event.user === undefined ? Promise.resolve(authorId) : nameOfUser(event.user),
    resolveSlackText({ text: event.text ?? '', botUserId, nameOfUser }),
  ]);
  const images: ImageAttachment[] = [];
  const documents: DocumentAttachment[] = [];
  for (const file of event.files ?? []) {
    if (isImageFile(file)) {
      images.push(
        slackImageAttachment({ file, botToken, apiUrl: client.slackApiUrl, maxBytes: maxImageBytes }),
      );
    } else {
      documents.push(
        slackDocumentAttachment({ file, botToken, apiUrl: client.slackApiUrl, maxBytes: maxDocumentBytes }),
      );
    }
  }
  const fallback = textOfWordlessMessage({ imageCount: images.length, documentCount: documents.length });
  return {
    conversationKey,
    author: { id: authorId, name: author },
    text: text || fallback,
    images,
    documents,
    isAddressedToBot: event.type === 'app_mention' || event.channel_type === 'im',
    notices: [],
    ...sentAtOf(event.ts),
  };
}

/** A message `ts` ("1700000000.123456") is when Slack got it, to the microsecond. */
export function sentAtMicrosOf(ts: string): number | undefined {
  const match = /^(\d+)\.(\d{1,6})$/.exec(ts);
  if (!match) return undefined;
  return Number(match[1]) * 1_000_000 + Number((match[2] ?? '').padEnd(6, '0'));
}

function sentAtOf(ts: string): { sentAtMicros?: number } {
  const sentAtMicros = sentAtMicrosOf(ts);
  return sentAtMicros === undefined ? {} : { sentAtMicros };
}

/** A file read as a document when the engine gets to it, downloaded with the bot token. */
export function slackDocumentAttachment({
  file,
  botToken,
  apiUrl,
  maxBytes,
}: {
  file: SlackFileObject;
  botToken: string;
  apiUrl: string;
  maxBytes: number;
}): DocumentAttachment {
  return {
    name: fileNameOf(file),
    ...(file.mimetype ? { mimeType: file.mimetype } : {}),
    load: () => downloadSlackFile({ file, botToken, apiUrl, maxBytes }),
  };
}
