import type { Context, webApi } from '@slack/bolt';
import { allCommands } from '../../commands/all-commands.ts';
import type { Command, ConversationRenameOutcome } from '../../commands/define-command.ts';
import { runCommand } from '../../commands/run-command.ts';
import type { ConversationKey } from '../../src/conversation/turn.ts';
import type { ToolStep } from '../../src/gateway/chat-types.ts';
import type { SlackAdapterContext } from './adapter-context.ts';
import { agentSessionStatusOf, setAgentSessionStatus } from './agent-sessions.ts';
import { createChannelResponder } from './channel-responder.ts';
import { parseSlackCommandText } from './command-text.ts';
import type { SlackMessageEvent } from './message-turn.ts';
import { readChannelHistory } from './read-channel-history.ts';
import { recentFileAttachment, recentImageAttachment } from './recent-image.ts';
import type { ReplyPlace } from './reply-place.ts';
import { slackActorOf } from './slack-actor.ts';
import { slackHelp } from './slack-guide.ts';
import { resolveSlackText } from './slack-text.ts';
import { showThinkingStatus } from './thread-status.ts';
import { mayNameThread, nameThread } from './thread-title.ts';

/**
 * The commands a message may run where slash commands cannot: Slack offers no slash commands inside
 * a thread, and in the AI app's DM every message is in one (Slack's AI-app docs: slash commands "are
 * not supported because all messages … take place in message threads", as quoted in
 * slackapi/python-slack-sdk#1570). So `@parley summarize`, `@parley model gpt-x`, `@parley reset` … run the command of that name
 * there. Each takes only what cannot be ordinary speech: `help`, `reset` and `usage` stand alone (flags
 * aside), `model` takes one word, so "help me write a reply" stays a question. A leading slash
 * (`@parley /summarize`, `@parley /imagine a cat`) always means the command, any command.
 */
const threadTextCommands: Readonly<Record<string, 'alone' | 'one-word' | 'any-text'>> = {
  summarize: 'any-text',
  reset: 'alone',
  model: 'one-word',
  system: 'any-text',
  usage: 'alone',
  help: 'alone',
};

/** The command a message names, with the rest of its text; undefined for chat. */
export function threadTextCommandOf(
  text: string,
  botUserId: string | undefined,
): { command: Command; text: string } | undefined {
  const withoutMention =
    botUserId === undefined ? text : text.replace(new RegExp(`^\\s*<@${botUserId}(\\|[^>]*)?>`), '');
  const match = /^\s*(\/)?([a-z]+)\b\s*([\s\S]*)$/i.exec(withoutMention);
  if (match === null) return undefined;
  const [, slash, word = '', rest = ''] = match;
  // With a slash any command runs (`@parley /imagine a cat`); without, only the words above.
  const shape = slash === undefined ? threadTextCommands[word.toLowerCase()] : 'any-text';
  const command = allCommands.find((candidate) => candidate.name === word.toLowerCase());
  if (shape === undefined || command === undefined) return undefined;
  const words = rest.replace(/(^|\s)(--|—)\S+(\s+[^-\s]\S*)?/g, ' ').trim();
  const fits =
    slash !== undefined ||
    shape === 'any-text' ||
    (shape === 'alone' && words === '') ||
    (shape === 'one-word' && !/\s/.test(words));
  return fits ? { command, text: rest.trim() } : undefined;
}

/**
 * Runs a command named by a message in its thread (or DM), answering there; the conversation is the
 * thread's, so `reset` forgets this thread and `model` sets its model. True when the message was a
 * command.
 */
export async function runThreadTextCommand({
  adapter,
  event,
  place,
  conversationKey,
  client,
  context,
}: {
  adapter: SlackAdapterContext;
  event: SlackMessageEvent;
  place: ReplyPlace;
  conversationKey: ConversationKey;
  client: webApi.WebClient;
  context: Context;
}): Promise<boolean> {
  // A message that shares files is about them ("@parley summarize" + notes.txt): that is chat.
  if ((event.files ?? []).length > 0) return false;
  const named = threadTextCommandOf(event.text ?? '', context.botUserId);
  if (named === undefined || event.user === undefined) return false;
  const { teamId, channel, threadTs } = place;
  const nameOfUser = async (userId: string) => (await adapter.directory.lookUp({ client, userId })).name;
  const [person, text] = await Promise.all([
    adapter.directory.lookUp({ client, userId: event.user }),
    resolveSlackText({ text: named.text, botUserId: context.botUserId, nameOfUser }),
  ]);
  const user = slackActorOf({
    person,
    userGroups: adapter.userGroups,
    client,
    teamId,
    channel: { id: place.channel, type: place.channelType },
  });
  const notes: string[] = [];
  // No response_url for a message: private answers go by chat.postEphemeral.
  const channelResponder = createChannelResponder({
    notes,
    place: { ...place, recipientUserId: person.id },
    context: adapter.delivery,
    respond: undefined,
  });
  // While it works, the thread says so too ("🎨 drawing…", "📝 reading…"), as a chat reply's
  // "is thinking…" does; Slack clears the status when the answer arrives. An agent's session is
  // processing instead (agent-sessions.ts), from the first progress: a command only shows progress
  // once the person may use it, so a refused one leaves no trace.
  const responder = {
    ...channelResponder,
    async showStep(step: ToolStep) {
      await setAgentSessionStatus({ place, context: adapter.delivery, status: 'processing' });
      return (await channelResponder.showStep?.(step)) ?? 'not-shown';
    },
    async progress(text: string) {
      await setAgentSessionStatus({ place, context: adapter.delivery, status: 'processing' });
      await showThinkingStatus(place, adapter.delivery, text);
      return channelResponder.progress(text);
    },
    // `/title` names the thread where Slack shows a name: its agent session, or a thread of the DM.
    ...(mayNameThread(adapter.delivery, place)
      ? {
          async renameConversation(title: string): Promise<ConversationRenameOutcome> {
            const named = await nameThread({ place, context: adapter.delivery, title });
            return named === 'named'
              ? { status: 'renamed', title }
              : { status: 'unavailable', reason: 'Slack would not rename this thread; try again later.' };
          },
        }
      : {}),
  };
  const recentPlace = { client, channel, threadTs, botToken: adapter.botTokenFor(client) };
  const status = await runCommand({
    command: named.command,
    rawOptions: parseSlackCommandText({
      options: named.command.options,
      text,
      recentImage: () => recentImageAttachment({ ...recentPlace, maxBytes: adapter.maxImageBytes }),
      recentFile: () => recentFileAttachment({ ...recentPlace, maxBytes: adapter.services.maxDocumentBytes }),
    }),
    conversationKey,
    user,
    responder,
    services: adapter.services,
    platformHelp: slackHelp(),
    platformTimeZone: person.timeZone,
    readRecentMessages: (limit) =>
      readChannelHistory({
        client,
        channel,
        threadTs,
        limit,
        botUserId: context.botUserId,
        directory: adapter.directory,
        onNote: (note) => notes.push(note),
      }),
  });
  // A command that ends the conversation (/reset) closes its session, if parley holds one; a command
  // that showed progress leaves it active, waiting for the next message.
  if (status === 'done' && named.command.endsConversation === true) {
    await setAgentSessionStatus({ place, context: adapter.delivery, status: 'closed' });
  } else if (agentSessionStatusOf(adapter.delivery, place) === 'processing') {
    await setAgentSessionStatus({ place, context: adapter.delivery, status: 'active' });
  }
  return true;
}
