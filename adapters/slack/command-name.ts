import type { Command } from '../../commands/define-command.ts';

/** The Slack name of a command: `/` + the configured prefix + its name, e.g. `/parley-imagine`. */
export function slackCommandName({
  prefix,
  command,
}: {
  prefix: string;
  command: Pick<Command, 'name'>;
}): string {
  return `/${prefix}${command.name}`;
}
