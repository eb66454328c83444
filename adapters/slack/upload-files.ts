import type { webApi } from '@slack/bolt';
import { truncateText } from '../../src/delivery/card.ts';
import type { OutgoingFile } from '../../src/delivery/surface.ts';
import type { ReplyPlace } from './reply-place.ts';
import { explainSlackError } from './slack-errors.ts';
import { slackLimits } from './slack-limits.ts';

/**
 * Shares files in the place's channel or thread as one message (`filesUploadV2`: get an upload URL
 * per file, send the bytes, complete them together), with an optional comment. Returns the
 * message's ts when Slack says it; an upload message's ts arrives only later for large files.
 */
export async function uploadFiles({
  place,
  files,
  comment,
}: {
  place: Pick<ReplyPlace, 'client' | 'channel' | 'threadTs'>;
  files: readonly OutgoingFile[];
  /** The message text above the files, in mrkdwn. */
  comment?: string;
}): Promise<string | undefined> {
  if (files.length === 0) return undefined;
  const upload = {
    channel_id: place.channel,
    ...(place.threadTs === undefined ? {} : { thread_ts: place.threadTs }),
    ...(comment ? { initial_comment: truncateText(comment, slackLimits.sectionText) } : {}),
    file_uploads: files.map((file) => ({
      file: Buffer.from(file.bytes),
      filename: file.name,
      title: file.name,
    })),
  } as webApi.FilesUploadV2Arguments;
  try {
    const response = await place.client.filesUploadV2(upload);
    return shareTsOf(response, place.channel);
  } catch (error) {
    throw explainSlackError(error);
  }
}

function shareTsOf(response: unknown, channel: string): string | undefined {
  const completions = (response as { files?: Array<{ files?: unknown[] }> }).files ?? [];
  for (const completion of completions) {
    for (const file of completion.files ?? []) {
      const shares = (file as { shares?: Record<string, Record<string, Array<{ ts?: unknown }>>> }).shares;
      for (const byChannel of Object.values(shares ?? {})) {
        const ts = byChannel[channel]?.[0]?.ts;
        if (typeof ts === 'string') return ts;
      }
    }
  }
  return undefined;
}
