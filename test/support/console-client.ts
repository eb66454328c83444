/** One answer the console gave, its body read. */
export interface ConsoleAnswer {
  readonly status: number;
  readonly location: string | undefined;
  readonly body: string;
  readonly headers: Headers;
}

/**
 * A browser's part that the console's tests need, without a browser: a cookie jar for the
 * console's origin, and redirects followed by hand (to the fake Discord and back) so each hop is
 * seen. Cookies of other origins are not kept: the fake sets none.
 */
export function createConsoleClient(origin: string) {
  const cookies = new Map<string, string>();
  const remember = (headers: Headers) => {
    for (const line of headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator);
      const value = pair.slice(separator + 1);
      if (/max-age=0|expires=Thu, 01 Jan 1970/i.test(line) || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
  };
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');

  async function once(
    url: string,
    init: { method: 'GET' | 'POST'; form?: Record<string, string>; origin?: string },
  ): Promise<ConsoleAnswer> {
    const isConsole = url.startsWith(origin);
    const headers: Record<string, string> = {};
    if (isConsole && cookies.size > 0) headers.cookie = cookieHeader();
    if (init.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (init.origin !== undefined) headers.origin = init.origin;
    const response = await fetch(url, {
      method: init.method,
      headers,
      redirect: 'manual',
      ...(init.form === undefined ? {} : { body: new URLSearchParams(init.form).toString() }),
    });
    if (isConsole) remember(response.headers);
    return {
      status: response.status,
      location: response.headers.get('location') ?? undefined,
      body: await response.text(),
      headers: response.headers,
    };
  }

  /** Follows redirects (303 turns into GET) and answers with the last page. */
  async function request(
    path: string,
    init: { method?: 'GET' | 'POST'; form?: Record<string, string>; origin?: string } = {},
  ): Promise<ConsoleAnswer> {
    let url = path.startsWith('http') ? path : `${origin}${path}`;
    let answer = await once(url, { method: init.method ?? 'GET', ...init });
    for (
      let hop = 0;
      hop < 6 && answer.location !== undefined && answer.status >= 300 && answer.status < 400;
      hop += 1
    ) {
      url = new URL(answer.location, url).toString();
      answer = await once(url, { method: 'GET' });
    }
    return answer;
  }

  return {
    get: (path: string) => request(path),
    post: (path: string, form: Record<string, string>, options: { origin?: string } = {}) =>
      request(path, { method: 'POST', form, ...options }),
    /** One request, its redirect not followed. */
    getOnce: (path: string) => once(`${origin}${path}`, { method: 'GET' }),
    /** One request of any method, its redirect not followed. */
    once: (method: 'GET' | 'POST', path: string, form?: Record<string, string>) =>
      once(`${origin}${path}`, { method, ...(form === undefined ? {} : { form }) }),
    /** The status of a GET whose body is never read (an event stream), its connection then let go. */
    async statusOf(path: string): Promise<{ status: number }> {
      const abort = new AbortController();
      const response = await fetch(`${origin}${path}`, {
        headers: cookies.size > 0 ? { cookie: cookieHeader() } : {},
        redirect: 'manual',
        signal: abort.signal,
      });
      abort.abort();
      return { status: response.status };
    },
    /** The CSRF token of the last signed-in page (every one has the sign-out form). */
    csrfOf: (page: ConsoleAnswer) => /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '',
    cookies,
  };
}

export type ConsoleClient = ReturnType<typeof createConsoleClient>;
