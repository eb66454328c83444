import type { webApi } from '@slack/bolt';
import { truncateText } from '../../src/delivery/card.ts';
import type { OutgoingFile } from '../../src/delivery/surface.ts';
import type { Logger } from '../../src/log.ts';
import type { ReplyPlace } from './reply-place.ts';
import { explainSlackError } from './slack-errors.ts';
import { slackLimits } from './slack-limits.ts';

/**
 * Shares files in the place's channel or thread as one message (`filesUploadV2`: get an upload URL
 * per file, send the bytes, complete them together), with an optional comment, and returns once the
 * share exists, with the message's ts. `files.completeUploadExternal` answers before Slack has shared
 * the files (it returns only ids and titles), so whatever must appear below them (the Regenerate and
 * Vary buttons) waits for `files.info` to list the share. Undefined when the share was not seen in
 * time; the caller goes on regardless.
 */
export async function uploadFiles({
  place,
  files,
  comment,
  logger,
  shareTimeoutMs = 15_000,
}: {
  place: Pick<ReplyPlace, 'client' | 'channel' | 'threadTs'>;
  files: readonly OutgoingFile[];
  /** The message text above the files, in mrkdwn. */
  comment?: string;
  logger?: Logger;
  /** How long to wait for Slack to share the files. */
  shareTimeoutMs?: number;
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
  let fileId: string | undefined;
  try {
    fileId = firstFileIdOf(await place.client.filesUploadV2(upload));
  } catch (error) {
    throw explainSlackError(error);
  }
  if (fileId === undefined) return undefined;
  const ts = await waitForShare({
    client: place.client,
    fileId,
    channel: place.channel,
    timeoutMs: shareTimeoutMs,
  });
  if (ts === undefined) {
    logger?.warn({ fileId, channel: place.channel }, 'slack: the uploaded files were not shared in time');
  }
  return ts;
}

/** The first file id in filesUploadV2's answer: one `files.completeUploadExternal` result per call. */
function firstFileIdOf(response: unknown): string | undefined {
  const completions = (response as { files?: Array<{ files?: Array<{ id?: unknown }> }> }).files ?? [];
  const id = completions[0]?.files?.[0]?.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Polls `files.info` (Tier 4) until the file is shared in `channel`, backing off from 250 ms to 2 s,
 * and returns the ts of the message that shares it. All files of one upload share one message.
 */
async function waitForShare({
  client,
  fileId,
  channel,
  timeoutMs,
}: {
  client: webApi.WebClient;
  fileId: string;
  channel: string;
  timeoutMs: number;
}): Promise<string | undefined> {
  const deadlineMs = Date.now() + timeoutMs;
  for (let delayMs = 250; Date.now() < deadlineMs; delayMs = Math.min(delayMs * 2, 2_000)) {
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(delayMs, Math.max(0, deadlineMs - Date.now()))),
    );
    const { file } = await client.files.info({ file: fileId }).catch(() => ({ file: undefined }));
    const shares = (file as { shares?: Record<string, Record<string, Array<{ ts?: unknown }>>> } | undefined)
      ?.shares;
    for (const byChannel of Object.values(shares ?? {})) {
      const ts = byChannel[channel]?.[0]?.ts;
      if (typeof ts === 'string') return ts;
    }
  }
  return undefined;
}
