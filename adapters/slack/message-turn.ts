import type { webApi } from '@slack/bolt';
import { ImageLoadError } from '../../src/conversation/image-intake.ts';
import type { ConversationKey, ImageAttachment, IncomingTurn } from '../../src/conversation/turn.ts';
import {
  downloadSlackFile,
  fileNameOf,
  isImageFile,
  isTextFile,
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

/** A text file longer than this is cut, with a note: it would crowd out the conversation. */
const maxTextFileCharacters = 20_000;
const maxTextFileBytes = 512 * 1024;

/**
 * The turn for a message the bot answers: text with mentions resolved to names, image files (loaded
 * later by the engine, with the bot token), small text files inlined, and a note for every file it
 * cannot read.
 */
export async function buildTurnFromEvent({
  event,
  conversationKey,
  client,
  botUserId,
  botToken,
  maxImageBytes,
  directory,
}: {
  event: SlackMessageEvent;
  conversationKey: ConversationKey;
  client: webApi.WebClient;
  botUserId: string | undefined;
  botToken: string;
  maxImageBytes: number;
  directory: UserDirectory;
}): Promise<IncomingTurn> {
  const authorId = event.user ?? event.bot_id ?? 'unknown';
  const nameOfUser = async (userId: string) => (await directory.lookUp({ client, userId })).name;
  const [author, text] = await Promise.all([
    event.user === undefined ? Promise.resolve(authorId) : nameOfUser(event.user),
    resolveSlackText({ text: event.text ?? '', botUserId, nameOfUser }),
  ]);
  const images: ImageAttachment[] = [];
  const inlinedFiles: string[] = [];
  const notices: string[] = [];
  for (const file of event.files ?? []) {
    if (isImageFile(file)) {
      images.push(
        slackImageAttachment({ file, botToken, apiUrl: client.slackApiUrl, maxBytes: maxImageBytes }),
      );
    } else if (isTextFile(file)) {
      const content = await readTextFile({ file, botToken, apiUrl: client.slackApiUrl, notices });
      if (content !== undefined) inlinedFiles.push(`[file ${fileNameOf(file)}]\n\`\`\`\n${content}\n\`\`\``);
    } else {
      notices.push(`I can only read images and text files, so I left out ${fileNameOf(file)}.`);
    }
  }
  const shownText = text || (images.length > 0 ? '(sent an image)' : '(mentioned you without a message)');
  return {
    conversationKey,
    author: { id: authorId, name: author },
    text: [shownText, ...inlinedFiles].join('\n\n'),
    images,
    notices,
  };
}

async function readTextFile({
  file,
  botToken,
  apiUrl,
  notices,
}: {
  file: SlackFileObject;
  botToken: string;
  apiUrl: string;
  notices: string[];
}): Promise<string | undefined> {
  try {
    const bytes = await downloadSlackFile({ file, botToken, apiUrl, maxBytes: maxTextFileBytes });
    const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
    if (text.length <= maxTextFileCharacters) return text;
    notices.push(
      `${fileNameOf(file)} is long, so I read only its first ${maxTextFileCharacters.toLocaleString('en-US')} characters.`,
    );
    return text.slice(0, maxTextFileCharacters);
  } catch (error) {
    notices.push(
      error instanceof ImageLoadError
        ? error.userMessage
        : `I could not read ${fileNameOf(file)}, so I left it out.`,
    );
    return undefined;
  }
}
