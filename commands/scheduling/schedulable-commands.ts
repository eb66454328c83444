import type { Command } from '../define-command.ts';

/**
 * Commands a schedule may not run: those that make or change schedules or a conversation's settings,
 * and every command that answers privately (a scheduled run answers in the channel, where a private
 * answer — /audit, /memory, /usage — would be read by everyone).
 */
const unschedulable = new Set([
  'schedule',
  'schedules',
  'timezone',
  'remind',
  'help',
  'config',
  'usage',
  'reset',
  'model',
  'system',
]);

/** Whether a schedule may run this command (undefined: there is no such command). */
export function isSchedulable(command: Command | undefined): boolean {
  return command !== undefined && !unschedulable.has(command.name) && command.isAnswerPrivate === undefined;
}
