/**
 * A setting's value as a configuration message may quote it: the operator sees what they wrote, less
 * what must never reach stderr or a log. A URL's userinfo (`user:password@`, often an API key) and
 * anything that looks like a key or token are left out, whichever variable they were put in by
 * mistake: a message names the variable and the problem, which is enough to find them.
 */
export function quoteSettingValue(value: string): string {
  return `"${withoutSecrets(value)}"`;
}

/** Userinfo of a URL: `scheme://user:password@` (also without the scheme's slashes, `user:pw@host`). */
const userinfoPattern = /(^|\/\/)[^\s/@"]+@/g;
/** Keys with a known prefix: OpenAI-style `sk-…`, Slack `xox?-…` and `xapp-…`, GitHub, GitLab. */
const prefixedKeyPattern = /\b(?:sk|pk|rk|xox[a-z]|xapp|ghp|gho|ghs|glpat)-[\w.-]{6,}/gi;
/** A long run of token characters that mixes letters and digits (a Discord token, a bare key). */
const longTokenPattern = /[\w+=-]{24,}(?:\.[\w+=-]{4,}){0,2}/g;

/** The text with every secret-looking part replaced by `…`. */
export function withoutSecrets(text: string): string {
  return text
    .replace(userinfoPattern, (_, start: string) => `${start}…@`)
    .replace(prefixedKeyPattern, '…')
    .replace(longTokenPattern, (run) => (/[a-z]/i.test(run) && /\d/.test(run) ? '…' : run));
}
