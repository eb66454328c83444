import { arrayArgument, numberArgument, stringArgument } from './api-arguments.ts';
import type { ApiMethod } from './fake-slack-state.ts';
import type { SlackFile } from './file-store.ts';
import { SlackApiError } from './slack-api-error.ts';
import { nextMessageTs } from './slack-ids.ts';

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

const completeUploadExternal: ApiMethod = (state, args) => {
  const references = (arrayArgument(args, 'files') ?? []) as FileReference[];
  if (references.length === 0) {
    throw new SlackApiError('invalid_arguments');
  }
  const channel = stringArgument(args, 'channel_id') ?? stringArgument(args, 'channels')?.split(',')[0];
  const threadTs = stringArgument(args, 'thread_ts');
  const initialComment = stringArgument(args, 'initial_comment');
  // All files are checked before any is shared: Slack completes all of them or none.
  const uploads = references.map((reference) => {
    const upload = state.files.pendingUploadByFileId(String(reference?.id));
    if (upload?.bytes === undefined) {
      throw new SlackApiError('file_not_found');
    }
    return { reference, upload, bytes: upload.bytes };
  });

  const files: SlackFile[] = [];
  const messageTs = channel === undefined ? undefined : nextMessageTs();
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
    state.files.uploaded.push({
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
      messageTs,
      completedAtMs: Date.now(),
    });
  }
  if (channel !== undefined && messageTs !== undefined) {
    state.messages.add({
      channel,
      ts: messageTs,
      threadTs,
      user: state.workspace.botUserId,
      botId: state.workspace.botId,
      text: initialComment ?? '',
      blocks: arrayArgument(args, 'blocks'),
      files,
    });
  }
  return { files };
};

const filesInfo: ApiMethod = (state, args) => {
  const stored = state.files.get(stringArgument(args, 'file') ?? '');
  if (stored === undefined) {
    throw new SlackApiError('file_not_found');
  }
  return { file: stored.file, comments: [], response_metadata: { next_cursor: '' } };
};

/** `files.getUploadURLExternal`, `files.completeUploadExternal`, `files.info`. */
export const fileMethods: Record<string, ApiMethod> = {
  'files.getUploadURLExternal': getUploadUrlExternal,
  'files.completeUploadExternal': completeUploadExternal,
  'files.info': filesInfo,
};
