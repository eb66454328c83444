import type { Command } from './define-command.ts';
import { defineCommand } from './define-command.ts';
import { auditCommand } from './definitions/audit.ts';
import { chatCommand } from './definitions/chat.ts';
import { configCommand } from './definitions/config.ts';
import { connectionsCommand } from './definitions/connections.ts';
import { consoleCommand } from './definitions/console.ts';
import { exportCommand } from './definitions/export.ts';
import { extractCommand } from './definitions/extract.ts';
import { forgetCommand } from './definitions/forget.ts';
import { imagineCommand } from './definitions/imagine.ts';
import { memoryCommand } from './definitions/memory.ts';
import { modelCommand } from './definitions/model.ts';
import { remindCommand } from './definitions/remind.ts';
import { resetCommand } from './definitions/reset.ts';
import { scheduleCommand } from './definitions/schedule.ts';
import { schedulesCommand } from './definitions/schedules.ts';
import { searchCommand } from './definitions/search.ts';
import { summarizeCommand } from './definitions/summarize.ts';
import { systemCommand } from './definitions/system.ts';
import { timezoneCommand } from './definitions/timezone.ts';
import { titleCommand } from './definitions/title.ts';
import { toolsCommand } from './definitions/tools.ts';
import { usageCommand } from './definitions/usage.ts';
import { describeUsage } from './parse-command-text.ts';
import { toolsHelpLines } from './tools-help.ts';

// /help lists the others, so it lives beside the list it reads.
const helpCommand: Command = defineCommand({
  name: 'help',
  description: 'What parley does and its commands',
  options: {},
  runsInConversationOrder: false,
  isAnswerPrivate: () => true,
  async run({ responder, services, user, conversationKey, platformNotices = [], platformHelp }) {
    // One answer, however long: a responder splits what one message of its platform cannot hold.
    const lines = [
      ...(platformHelp === undefined ? [] : [platformHelp, '']),
      // How to reach parley differs by platform (a mention, a DM, a line typed in the terminal):
      // the platform's help says it, so this line holds only what is true everywhere.
      'I am parley, an AI assistant. I remember each conversation, read the images and files you give me, and answer with the model the conversation is set to.',
      '',
      ...allCommands.map(
        (command) => `\`${describeUsage(command.name, command.options)}\` — ${command.description}`,
      ),
      '',
      `Default model: ${services.models.chat}; images: ${services.models.image}.`,
      ...(await toolsHelpLines({ services, user, conversationKey })),
      ...platformNotices.map((notice) => `\n⚠ ${notice}`),
    ];
    await responder.send({ text: lines.join('\n'), isPrivate: true });
  },
});

/** Every command, declared once; each platform registers this list. */
export const allCommands: readonly Command[] = [
  chatCommand,
  imagineCommand,
  summarizeCommand,
  extractCommand,
  searchCommand,
  modelCommand,
  systemCommand,
  resetCommand,
  titleCommand,
  usageCommand,
  memoryCommand,
  forgetCommand,
  exportCommand,
  configCommand,
  auditCommand,
  consoleCommand,
  toolsCommand,
  connectionsCommand,
  remindCommand,
  scheduleCommand,
  schedulesCommand,
  timezoneCommand,
  helpCommand,
] as readonly Command[];

export function findCommand(name: string): Command | undefined {
  const wanted = name.toLowerCase().replace(/^\//, '');
  return allCommands.find((command) => command.name === wanted);
}
