import type { App, MessageShortcut as BoltMessageShortcut, webApi } from '@slack/bolt';
import { z } from 'zod';
import { findCommand } from '../../commands/all-commands.ts';
import { replyWithActions } from '../../commands/chat-reply.ts';
import { runCommand } from '../../commands/run-command.ts';
import { conversationKeyOf } from '../../src/conversation/turn.ts';
import type { SlackAdapterContext } from './adapter-context.ts';
import { createChannelResponder } from './channel-responder.ts';
import { withFeedbackButtons } from './feedback-surface.ts';
import { messageShortcutOf } from './message-shortcuts.ts';
import { buildTurnFromEvent } from './message-turn.ts';
import { withPrivateNotice } from './private-notice.ts';
import { readChannelHistory } from './read-channel-history.ts';
import type { ReplyPlace } from './reply-place.ts';
import { createReplySurface } from './reply-surface.ts';
import { slackActorOf } from './slack-actor.ts';
import type { SlackFileObject } from './slack-files.ts';
import { isImageFile, slackImageAttachment } from './slack-files.ts';
import { resolveSlackText } from './slack-text.ts';

const askCallbackId = 'parley:ask';
const questionBlockId = 'question';

/** What the "Ask parley" modal carries to its submission: the message asked about. */
const askContextSchema = z.object({
  channel: z.string(),
  messageTs: z.string(),
  threadTs: z.string(),
  authorId: z.string().optional(),
  text: z.string(),
  files: z
    .array(
      z.object({
        id: z.string(),
        name: z.string().optional(),
        mimetype: z.string().optional(),
        url_private: z.string().optional(),
        url_private_download: z.string().optional(),
      }),
    )
    .default([]),
});
type AskContext = z.infer<typeof askContextSchema>;

/** Slack's limit on a view's `private_metadata` (docs.slack.dev/reference/views). */
const maxPrivateMetadata = 3_000;

interface ShortcutMessage {
  ts?: string;
  thread_ts?: string;
  text?: string;
  user?: string;
  files?: SlackFileObject[];
}

/**
 * The message shortcuts (message-shortcuts.ts), acknowledged at once (Slack waits 3 s): "Ask parley"
 * opens a modal for the question and answers in the message's thread with the message (and its
 * images) as context; "Summarize from here" summarizes the message and what came after it, in its
 * thread; "Extract data" runs /extract on the message's text and first image.
 */
export function registerMessageShortcuts({ app, adapter }: { app: App; adapter: SlackAdapterContext }): void {
  app.shortcut<BoltMessageShortcut>({ type: 'message_action', callback_id: /^parley_/ }, async (args) => {
    const { ack, shortcut, client, context, respond } = args;
    await ack();
    const declared = messageShortcutOf(shortcut.callback_id);
    const message = shortcut.message as ShortcutMessage;
    const messageTs = message.ts ?? shortcut.message_ts;
    if (declared === undefined) return;
    const teamId = context.teamId ?? shortcut.team?.id ?? 'unknown-team';
    const channel = shortcut.channel.id;
    // The answer goes under the message: in its thread, or a new thread from it.
    const threadTs = message.thread_ts ?? messageTs;
    try {
      if (declared.kind === 'ask') {
        await client.views.open({
          trigger_id: shortcut.trigger_id,
          view: askModal({
            channel,
            messageTs,
            threadTs,
            authorId: message.user,
            text: message.text ?? '',
            files: message.files ?? [],
          }),
        });
        return;
      }
      const person = await adapter.directory.lookUp({ client, userId: shortcut.user.id });
      const user = slackActorOf({
        person,
        userGroups: adapter.userGroups,
        client,
        teamId,
        channel: { id: channel },
      });
      const notes: string[] = [];
      const place: ReplyPlace & { recipientUserId: string } = {
        client,
        teamId,
        channel,
        threadTs,
        recipientUserId: user.id,
      };
      const responder = createChannelResponder({
        notes,
        place,
        context: adapter.delivery,
        respond,
        attribution: `<@${user.id}> used “${declared.name}” on a message`,
      });
      const conversationKey = conversationKeyOf({
        platform: 'slack',
        workspace: teamId,
        channel,
        thread: threadTs,
      });
      const isInThread = message.thread_ts !== undefined;
      const command = findCommand(declared.kind === 'extract' ? 'extract' : 'summarize');
      if (command === undefined) return;
      const messageText = await resolveSlackText({
        text: message.text ?? '',
        botUserId: context.botUserId,
        nameOfUser: async (userId) => (await adapter.directory.lookUp({ client, userId })).name,
      });
      const image = (message.files ?? []).find(isImageFile);
      await runCommand({
        command,
        rawOptions:
          declared.kind === 'extract'
            ? {
                ...(messageText === '' ? {} : { what: messageText }),
                ...(image === undefined
                  ? {}
                  : {
                      image: slackImageAttachment({
                        file: image,
                        botToken: adapter.botTokenFor(client),
                        apiUrl: client.slackApiUrl,
                        maxBytes: adapter.maxImageBytes,
                      }),
                    }),
              }
            : {},
        conversationKey,
        user,
        responder,
        services: adapter.services,
        readRecentMessages: (limit) =>
          readChannelHistory({
            client,
            channel,
            threadTs: isInThread ? threadTs : undefined,
            limit,
            botUserId: context.botUserId,
            directory: adapter.directory,
            onNote: (note) => notes.push(note),
            // "From here": that message and the ones after it.
            fromTs: declared.kind === 'summarize-from-here' ? messageTs : undefined,
          }),
      });
    } catch (error) {
      adapter.logger.error({ err: error, shortcut: declared.callbackId }, 'slack: a message shortcut failed');
      await respond({
        response_type: 'ephemeral',
        text: '⚠ Something went wrong on my side. It has been logged.',
      }).catch(() => undefined);
    }
  });

  app.view({ type: 'view_submission', callback_id: askCallbackId }, async ({ ack, body, view, client }) => {
    const question = String(Object.values(view.state.values[questionBlockId] ?? {})[0]?.value ?? '').trim();
    if (question === '') {
      await ack({ response_action: 'errors', errors: { [questionBlockId]: 'Write a question.' } });
      return;
    }
    await ack();
    const parsed = askContextSchema.safeParse(parseJson(view.private_metadata));
    if (!parsed.success) {
      adapter.logger.warn(
        { problems: parsed.error.issues.length },
        'slack: an Ask parley modal came back without its message',
      );
      return;
    }
    await answerQuestion({
      adapter,
      client,
      teamId: body.team?.id ?? 'unknown-team',
      userId: body.user.id,
      question,
      asked: parsed.data,
    });
  });
}

function askModal(asked: AskContext | (Omit<AskContext, 'files'> & { files: readonly SlackFileObject[] })) {
  const files = asked.files.map(({ id, name, mimetype, url_private, url_private_download }) => ({
    id,
    name,
    mimetype,
    url_private,
    url_private_download,
  }));
  let context = JSON.stringify({ ...asked, files });
  // Too long for the modal to carry: the text is cut, then the images left out.
  if (context.length > maxPrivateMetadata) {
    const room = maxPrivateMetadata - JSON.stringify({ ...asked, text: '', files }).length - 20;
    context = room > 200 ? JSON.stringify({ ...asked, text: `${asked.text.slice(0, room)}…`, files }) : '';
    if (context === '' || context.length > maxPrivateMetadata) {
      context = JSON.stringify({ ...asked, text: `${asked.text.slice(0, 2_500)}…`, files: [] });
    }
  }
  return {
    type: 'modal' as const,
    callback_id: askCallbackId,
    title: { type: 'plain_text' as const, text: 'Ask parley' },
    submit: { type: 'plain_text' as const, text: 'Ask' },
    close: { type: 'plain_text' as const, text: 'Cancel' },
    private_metadata: context,
    blocks: [
      {
        type: 'input' as const,
        block_id: questionBlockId,
        label: { type: 'plain_text' as const, text: 'Your question about this message' },
        element: {
          type: 'plain_text_input' as const,
          action_id: 'value',
          multiline: true,
          max_length: 3_000,
        },
      },
    ],
  };
}

async function answerQuestion({
  adapter,
  client,
  teamId,
  userId,
  question,
  asked,
}: {
  adapter: SlackAdapterContext;
  client: webApi.WebClient;
  teamId: string;
  userId: string;
  question: string;
  asked: AskContext;
}): Promise<void> {
  const { channel, threadTs } = asked;
  const conversationKey = conversationKeyOf({
    platform: 'slack',
    workspace: teamId,
    channel,
    thread: threadTs,
  });
  const place: ReplyPlace = {
    client,
    teamId,
    channel,
    threadTs,
    recipientUserId: userId,
    channelType: channel.startsWith('D') ? 'im' : undefined,
  };
  try {
    // The gate answers on who asks and where; the message asked about (its author's name, the
    // people it names, its files) is read only for someone it lets in.
    const person = await adapter.directory.lookUp({ client, userId });
    const actor = slackActorOf({
      person,
      userGroups: adapter.userGroups,
      client,
      teamId,
      channel: { id: channel, type: place.channelType },
    });
    const read = async () => {
      const authorName =
        asked.authorId === undefined
          ? 'someone'
          : (await adapter.directory.lookUp({ client, userId: asked.authorId })).name;
      const quoted = asked.text
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n');
      const built = await buildTurnFromEvent({
        // The question, with the message it is about quoted under it, and that message's files.
        event: {
          type: 'message',
          channel,
          user: userId,
          ts: asked.messageTs,
          text: `${question}\n\nAbout this message from ${authorName}:\n${quoted}`,
          files: asked.files,
        },
        conversationKey,
        client,
        botUserId: undefined,
        botToken: adapter.botTokenFor(client),
        maxImageBytes: adapter.maxImageBytes,
        maxDocumentBytes: adapter.services.maxDocumentBytes,
        directory: adapter.directory,
      });
      return { ...built, ownText: question, actor };
    };
    const turn = { facts: { actor, conversationKey }, read };
    const surface = withFeedbackButtons(
      withPrivateNotice(createReplySurface({ place, context: adapter.delivery }), place, adapter.delivery),
    );
    await replyWithActions({ services: adapter.services, turn, surface, isAnswerOwed: true });
  } catch (error) {
    adapter.logger.error({ err: error, conversationKey }, 'slack: could not answer an Ask parley question');
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
