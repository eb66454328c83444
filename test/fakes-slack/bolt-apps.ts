import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, SocketModeReceiver } from '@slack/bolt';
import type { FakeSlack } from '../fakes/slack/index.ts';
import { silentLogger } from './web-client.ts';

/** A real Bolt app running against the fake, with the errors its listeners threw. */
export interface AppUnderTest {
  app: App;
  /** Listener errors Bolt caught: a test that expects none checks this is empty. */
  errors: unknown[];
  stop(): Promise<void>;
}

function clientOptionsFor(fake: FakeSlack) {
  return { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } };
}

function collectErrors(app: App): unknown[] {
  const errors: unknown[] = [];
  app.error(async (error) => {
    errors.push(error);
  });
  return errors;
}

/**
 * A Bolt app in HTTP mode (its built-in HTTPReceiver) on a free port of 127.0.0.1; `fake.appUrl`
 * is set to its `/slack/events`.
 */
export async function startHttpApp(fake: FakeSlack, register: (app: App) => void): Promise<AppUnderTest> {
  const app = new App({
    token: fake.botToken,
    signingSecret: fake.signingSecret,
    logger: silentLogger,
    clientOptions: clientOptionsFor(fake),
  });
  const errors = collectErrors(app);
  register(app);
  // Bolt 5 passes listen options through to `server.listen`, so port 0 works and the server says
  // which port it got.
  const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
  const { port } = server.address() as AddressInfo;
  fake.appUrl = `http://127.0.0.1:${port}/slack/events`;
  return { app, errors, stop: () => app.stop() as Promise<void> };
}

/**
 * A Bolt app in Socket Mode. With `clientPingTimeoutMs` it gets a hand-built SocketModeReceiver:
 * `new App({ socketMode: true })` cannot set it, and the client waits that long (5 s by default)
 * before it reconnects after a `disconnect`.
 */
export async function startSocketApp(
  fake: FakeSlack,
  register: (app: App) => void,
  options: { clientPingTimeoutMs?: number } = {},
): Promise<AppUnderTest> {
  const clientOptions = clientOptionsFor(fake);
  const app =
    options.clientPingTimeoutMs === undefined
      ? new App({
          token: fake.botToken,
          appToken: fake.appToken,
          socketMode: true,
          logger: silentLogger,
          clientOptions,
        })
      : new App({
          token: fake.botToken,
          logger: silentLogger,
          clientOptions,
          receiver: new SocketModeReceiver({
            appToken: fake.appToken,
            logger: silentLogger,
            clientPingTimeout: options.clientPingTimeoutMs,
            installerOptions: { clientOptions },
          }),
        });
  const errors = collectErrors(app);
  register(app);
  await app.start();
  return { app, errors, stop: () => app.stop() as Promise<void> };
}
