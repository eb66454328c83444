import { arrayArgument, numberArgument, stringArgument } from './api-arguments.ts';
import type { ApiMethod, FakeSlackState } from './fake-slack-state.ts';
import type { SlackFile, UploadedFile } from './file-store.ts';
import { SlackApiError } from './slack-api-error.ts';
import { nextMessageTs } from './slack-ids.ts';

/**
 * files.getUploadURLExternal (docs.slack.dev/reference/methods/files.getUploadURLExternal): `filename`
 * and `length` in bytes are required; the answer is an `upload_url` to POST the bytes to and a
 * `file_id` for files.completeUploadExternal, which answers `file_not_found` for a file never sent.
 */
const getUploadUrlExternal: ApiMethod = (state, args) => {
  const filename = stringArgument(args, 'filename');
  const announcedLength = numberArgument(args, 'length');
  if (filename === undefined || announcedLength === undefined || announcedLength < 1) {
    throw new SlackApiError('invalid_arguments');
  }
  const upload = state.files.startUpload({
    filename,
    announcedLength,
    altText: stringArgument(args, 'alt_text') ?? stringArgument(args, 'alt_txt'),
  });
  return { upload_url: `${state.origin}/upload/v1/${upload.uploadId}`, file_id: upload.fileId };
};

interface FileReference {
  id: string;
  title?: string;
}

/**
 * `files.completeUploadExternal` answers with only `id` and `title` per file and shares the files
 * afterwards ("the files are shared asynchronously", docs.slack.dev/reference/methods/
 * files.completeUploadExternal): the message with the files appears, and `files.info` shows the share,
 * `fileShareDelayMs` later, so a message the app posts meanwhile lands above it.
 */
const completeUploadExternal: ApiMethod = (state, args) => {
  const references = (arrayArgument(args, 'files') ?? []) as FileReference[];
  if (references.length === 0) {
    throw new SlackApiError('invalid_arguments');
  }
  const channel = stringArgument(args, 'channel_id') ?? stringArgument(args, 'channels')?.split(',')[0];
  const threadTs = stringArgument(args, 'thread_ts');
  const initialComment = stringArgument(args, 'initial_comment');
  // All files are checked before any is stored: Slack completes all of them or none.
  const uploads = references.map((reference) => {
    const upload = state.files.pendingUploadByFileId(String(reference?.id));
    if (upload?.bytes === undefined) {
      throw new SlackApiError('file_not_found');
    }
    return { reference, upload, bytes: upload.bytes };
  });

  const files: SlackFile[] = [];
  const uploaded: UploadedFile[] = [];
  for (const { reference, upload, bytes } of uploads) {
    const file = state.files.add({
      name: upload.filename,
      title: reference.title ?? upload.filename,
      bytes,
      user: state.workspace.botUserId,
      id: upload.fileId,
    });
    state.files.finishUpload(upload.fileId);
    files.push(file);
    const entry: UploadedFile = {
      id: file.id,
      name: file.name,
      title: file.title,
      mimetype: file.mimetype,
      bytes,
      announcedLength: upload.announcedLength,
      altText: upload.altText,
      channel,
      threadTs,
      initialComment,
      messageTs: undefined,
      completedAtMs: Date.now(),
    };
    uploaded.push(entry);
    state.files.uploaded.push(entry);
  }
  if (channel !== undefined) {
    const blocks = arrayArgument(args, 'blocks');
    const share = () => shareFiles(state, { channel, threadTs, initialComment, blocks, files, uploaded });
    const timer = setTimeout(() => {
      state.pendingShares.delete(timer);
      share();
    }, state.fileShareDelayMs);
    timer.unref();
    state.pendingShares.add(timer);
  }
  return { files: files.map((file) => ({ id: file.id, title: file.title })) };
};

/** The share itself: the message with the files, and each file's `shares` entry. */
function shareFiles(
  state: FakeSlackState,
  share: {
    channel: string;
    threadTs: string | undefined;
    initialComment: string | undefined;
    blocks: unknown[] | undefined;
    files: SlackFile[];
    uploaded: UploadedFile[];
  },
): void {
  const messageTs = nextMessageTs();
  state.messages.add({
    channel: share.channel,
    ts: messageTs,
    threadTs: share.threadTs,
    user: state.workspace.botUserId,
    botId: state.workspace.botId,
    text: share.initialComment ?? '',
    blocks: share.blocks,
    files: share.files,
  });
  for (const entry of share.uploaded) entry.messageTs = messageTs;
  const target = state.directory.channel(share.channel);
  const visibility = target.isPrivate ? 'private' : 'public';
  for (const file of share.files) {
    state.fileShares.set(file.id, {
      visibility,
      channel: share.channel,
      entry: {
        ts: messageTs,
        ...(share.threadTs === undefined ? {} : { thread_ts: share.threadTs }),
        channel_name: target.name,
        team_id: state.workspace.teamId,
        share_user_id: state.workspace.botUserId,
        source: 'UNKNOWN',
        is_silent_share: false,
      },
    });
  }
  state.notifyChange();
}

const filesInfo: ApiMethod = (state, args) => {
  const stored = state.files.get(stringArgument(args, 'file') ?? '');
  if (stored === undefined) {
    throw new SlackApiError('file_not_found');
  }
  // Until the share has happened a file belongs to no conversation (files.info: `channels`, `groups`,
  // `ims` list where it is shared, `shares` the messages, keyed `public` or `private`).
  const share = state.fileShares.get(stored.file.id);
  const where = share === undefined ? undefined : state.directory.channel(share.channel);
  const file = {
    ...stored.file,
    channels: where !== undefined && !where.isPrivate ? [share?.channel] : [],
    groups: where?.isPrivate && !where.isIm ? [share?.channel] : [],
    ims: where?.isIm ? [share?.channel] : [],
    ...(share === undefined ? {} : { shares: { [share.visibility]: { [share.channel]: [share.entry] } } }),
  };
  return { file, comments: [], response_metadata: { next_cursor: '' } };
};

/** `files.getUploadURLExternal`, `files.completeUploadExternal`, `files.info`. */
export const fileMethods: Record<string, ApiMethod> = {
  'files.getUploadURLExternal': getUploadUrlExternal,
  'files.completeUploadExternal': completeUploadExternal,
  'files.info': filesInfo,
};
