/**
 * The budgets parley knows, each said once: who shares it (scope), over what time (period), and in
 * what it is counted (measure). The setting names are the environment variables that give the
 * defaults; `/config` overrides the same names per server or channel.
 */

/** Whose spending a budget bounds: one person, everyone with a role, a channel, a server, the process. */
export type BudgetScope = 'user' | 'role' | 'channel' | 'server' | 'global';
/** A budget day starts at midnight and a month on the 1st, in BUDGET_TIMEZONE. */
export type BudgetPeriod = 'day' | 'month';
/** Cost in the gateway's units (from the prices), tokens (prompt + reply), or images drawn. */
export type BudgetMeasure = 'cost' | 'tokens' | 'images';

export interface BudgetRule {
  readonly scope: BudgetScope;
  readonly period: BudgetPeriod;
  readonly measure: BudgetMeasure;
}

/** Budgets with one limit each (roles have one limit per role; see `roleBudgetRules`). */
export const budgetRules = {
  BUDGET_USER_DAILY: { scope: 'user', period: 'day', measure: 'cost' },
  BUDGET_USER_MONTHLY: { scope: 'user', period: 'month', measure: 'cost' },
  BUDGET_CHANNEL_DAILY: { scope: 'channel', period: 'day', measure: 'cost' },
  BUDGET_CHANNEL_MONTHLY: { scope: 'channel', period: 'month', measure: 'cost' },
  BUDGET_SERVER_DAILY: { scope: 'server', period: 'day', measure: 'cost' },
  BUDGET_SERVER_MONTHLY: { scope: 'server', period: 'month', measure: 'cost' },
  BUDGET_GLOBAL_DAILY: { scope: 'global', period: 'day', measure: 'cost' },
  BUDGET_GLOBAL_MONTHLY: { scope: 'global', period: 'month', measure: 'cost' },
  BUDGET_TOKENS_USER_DAILY: { scope: 'user', period: 'day', measure: 'tokens' },
  BUDGET_TOKENS_USER_MONTHLY: { scope: 'user', period: 'month', measure: 'tokens' },
  BUDGET_IMAGES_USER_DAILY: { scope: 'user', period: 'day', measure: 'images' },
  BUDGET_IMAGES_USER_MONTHLY: { scope: 'user', period: 'month', measure: 'images' },
} as const satisfies Record<string, BudgetRule>;

export type BudgetSettingName = keyof typeof budgetRules;
export const budgetSettingNames = Object.keys(budgetRules) as BudgetSettingName[];

/** Role budgets: a map of role id to a cost limit, shared by everyone with the role. */
export const roleBudgetRules = {
  BUDGET_ROLE_DAILY: { scope: 'role', period: 'day', measure: 'cost' },
  BUDGET_ROLE_MONTHLY: { scope: 'role', period: 'month', measure: 'cost' },
} as const satisfies Record<string, BudgetRule>;

export type RoleBudgetSettingName = keyof typeof roleBudgetRules;
export const roleBudgetSettingNames = Object.keys(roleBudgetRules) as RoleBudgetSettingName[];

/** Limits by setting name; a missing or undefined one is no limit. */
export type BudgetLimits = Partial<Record<BudgetSettingName, number | undefined>>;
/** Role budgets by setting name, then role id. */
export type RoleBudgetLimits = Partial<Record<RoleBudgetSettingName, Readonly<Record<string, number>>>>;

/** How a budget is named to a person: "your daily budget", "this channel's monthly budget". */
export function describeBudget(rule: BudgetRule, roleName?: string): string {
  const period = rule.period === 'day' ? 'daily' : 'monthly';
  const what = rule.measure === 'cost' ? 'budget' : `${rule.measure === 'tokens' ? 'token' : 'image'} budget`;
  switch (rule.scope) {
    case 'user':
      return `your ${period} ${what}`;
    case 'role':
      return `the ${period} ${what} of ${roleName ?? 'your role'}`;
    case 'channel':
      return `this channel's ${period} ${what}`;
    case 'server':
      return `this server's ${period} ${what}`;
    case 'global':
      return `parley's overall ${period} ${what}`;
  }
}
