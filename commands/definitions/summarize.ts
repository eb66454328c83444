import { z } from 'zod';
import type { DocumentAttachment } from '../../src/conversation/turn.ts';
import type { Card, CardField } from '../../src/delivery/card.ts';
import { fileOption, integerOption, textOption } from '../command-options.ts';
import { startCommandStep } from '../command-step.ts';
import { type CommandContext, defineCommand } from '../define-command.ts';
import { readCommandDocument, visionCapable } from '../document-input.ts';
import { askForStructuredAnswer, bulletList } from '../structured-answer.ts';

export const summarySchema = z.object({
  title: z.string().describe('A short title for what was discussed'),
  tldr: z.string().describe('The gist in one or two sentences'),
  keyPoints: z.array(z.string()).describe('The main points, one sentence each'),
  decisions: z.array(z.string()).describe('What was decided; empty if nothing was'),
  actionItems: z
    .array(
      z.object({
        owner: z.string().nullable().describe('Who will do it, by name, or null if nobody was named'),
        task: z.string(),
        due: z.string().nullable().describe('When it is due, as written in the chat, or null'),
      }),
    )
    .describe('Tasks someone agreed or was asked to do'),
  openQuestions: z.array(z.string()).describe('Questions nobody answered yet'),
});

export type Summary = z.infer<typeof summarySchema>;

/** Roughly how much transcript fits comfortably in one request, in characters. */
const transcriptCharacterBudget = 60_000;

export const summarizeCommand = defineCommand({
  name: 'summarize',
  description: 'Summarize the recent messages of this channel or thread, or a file',
  options: {
    messages: integerOption({
      description: 'How many recent messages to read (5–200)',
      minValue: 5,
      maxValue: 200,
      defaultValue: 50,
      aliases: ['m'],
    }),
    focus: textOption({ description: 'What to pay attention to', isFreeText: true, maxLength: 500 }),
    file: fileOption({
      description: 'A document to summarize instead: PDF, Word, Excel, CSV or text',
    }),
  },
  isUsableAnywhere: true,
  runsInConversationOrder: true,
  async run(context) {
    const { input, conversationKey, user, responder, services, readRecentMessages, signal } = context;
    if (input.file) {
      await summarizeFile({ context, file: input.file, focus: input.focus });
      return;
    }
    // Reading the messages and summarizing them are one step: a task card in a Slack thread.
    const step = await startCommandStep({
      responder,
      id: 'summarize',
      title: `📝 summarizing the last ${input.messages} messages`,
    });
    try {
      if (!step.isShown) await responder.progress(`📝 reading the last ${input.messages} messages…`);
      const messages = (await readRecentMessages(input.messages)).filter(
        (message) => message.text.trim() !== '',
      );
      if (messages.length === 0) {
        await step.end('error', 'nothing to summarize yet');
        await responder.send({ text: 'There is nothing here to summarize yet.', isPrivate: true });
        return;
      }
      const transcript = fitTranscript(
        messages.map((message) => `[${message.createdAt}] ${message.authorName}: ${message.text}`),
      );
      const summary = await askForStructuredAnswer({
        services,
        user,
        conversationKey,
        responder,
        signal,
        model: services.models.structured,
        schema: summarySchema,
        schemaName: 'channel_summary',
        messages: [
          {
            role: 'user',
            content: [
              `Summarize this chat transcript${input.focus ? `, focusing on: ${input.focus}` : ''}.`,
              'Use the names as written. Do not invent decisions, owners or dates that are not in the transcript.',
              '',
              transcript.text,
            ].join('\n'),
          },
        ],
      });
      // Without a summary the person was told why (askForStructuredAnswer); the card says it failed.
      await step.end(summary ? 'complete' : 'error');
      if (!summary) return;
      const footer = `${transcript.lineCount} messages${transcript.isShortened ? ' (the oldest were left out to fit)' : ''} · ${services.models.structured}`;
      await responder.send({ card: summaryCard(summary, footer) });
    } finally {
      // A summary that broke off (an error thrown) does not stay "in progress"; a no-op once ended.
      await step.end('error');
    }
  },
});

/** A file instead of the channel: the same card, from the document with its location markers. */
async function summarizeFile({
  context: { conversationKey, user, responder, services, signal },
  file,
  focus,
}: {
  context: CommandContext<unknown>;
  file: DocumentAttachment;
  focus: string | undefined;
}): Promise<void> {
  await responder.progress('📄 reading the file…');
  const document = await readCommandDocument({
    file,
    services,
    responder,
    maxCharacters: transcriptCharacterBudget,
  });
  if (!document) return;
  const model = document.hasImages ? visionCapable(services) : services.models.structured;
  const summary = await askForStructuredAnswer({
    services,
    user,
    conversationKey,
    responder,
    signal,
    model,
    schema: summarySchema,
    schemaName: 'document_summary',
    messages: [
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: `Summarize this document${focus ? `, focusing on: ${focus}` : ''}. Do not invent decisions, owners or dates that are not in it; cite locations in the key points.`,
          },
          ...document.parts,
        ],
      },
    ],
  });
  if (!summary) return;
  const leftOut = document.notices.length > 0 ? ` · ${document.notices.join(' ')}` : '';
  await responder.send({ card: summaryCard(summary, `${document.label} · ${model}${leftOut}`) });
}

/** The summary as a card: TL;DR on top, then one field per non-empty section. */
export function summaryCard(summary: Summary, footer: string): Card {
  const fields: CardField[] = [{ name: 'Key points', value: bulletList(summary.keyPoints) }];
  if (summary.decisions.length > 0) fields.push({ name: 'Decisions', value: bulletList(summary.decisions) });
  if (summary.actionItems.length > 0) {
    fields.push({
      name: 'Action items',
      value: bulletList(
        summary.actionItems.map(
          (item) =>
            `${item.owner ? `**${item.owner}**: ` : ''}${item.task}${item.due ? ` _(due ${item.due})_` : ''}`,
        ),
      ),
    });
  }
  if (summary.openQuestions.length > 0)
    fields.push({ name: 'Open questions', value: bulletList(summary.openQuestions) });
  return { title: summary.title, description: `**TL;DR** ${summary.tldr}`, fields, footer, tone: 'info' };
}

// The newest lines matter most, so when the transcript is too long the oldest lines go first.
function fitTranscript(lines: readonly string[]): { text: string; lineCount: number; isShortened: boolean } {
  const kept: string[] = [];
  let length = 0;
  for (let index = lines.length - 1; index >= 0; index -= 1) {
    const line = lines[index] ?? '';
    if (length + line.length + 1 > transcriptCharacterBudget) break;
    kept.unshift(line);
    length += line.length + 1;
  }
  return { text: kept.join('\n'), lineCount: kept.length, isShortened: kept.length < lines.length };
}
