/**
 * Where a person reaches parley from, as the platform says it — not as an adapter guesses it:
 * - `server`: a channel or thread of a server (Discord guild) or workspace parley is installed in;
 * - `direct-message`: a DM with parley itself;
 * - `group-direct-message`: a group DM (Discord group DM through a user install; Slack mpim);
 * - `user-install`: a command of parley installed by a person for themselves, used where parley is
 *   not installed (a DM with a friend, a server without the bot): Discord's user install;
 * - `terminal`: the owner at the keyboard of `npm start`.
 * The owner decides which of these are served at all (ACCESS_DMS, ACCESS_GROUP_DMS,
 * ACCESS_USER_INSTALLS).
 */
export type ActorContext = 'server' | 'direct-message' | 'group-direct-message' | 'user-install' | 'terminal';

/**
 * Whoever asks parley for something: a message, a command, a button, a form, a shortcut. Each
 * platform builds it in one place from its own facts and hands it to every entry point; access
 * (`authorize`) and spending decide on it, the same way everywhere.
 */
export interface Actor {
  readonly id: string;
  /** How parley names them to the model and in messages. */
  readonly name: string;
  /** Discord role ids, or Slack user-group ids: for access rules and role budgets. */
  readonly roleIds: readonly string[];
  /**
   * A server or workspace admin, from the platform's real permissions only (Discord Administrator
   * or Manage Server in that server; Slack admin or owner; the terminal's owner). Never inferred from
   * a missing server: a DM grants nobody anything.
   */
  readonly isAdmin: boolean;
  readonly context: ActorContext;
}
