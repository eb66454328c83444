// Runs the fake Model Gateway for local play: `npm run fake-gateway -- --port 8787 --api-key test-key`.
import { parseArgs } from 'node:util';
import { startFakeGateway } from './fake-gateway.ts';
import type { RecordedRequest } from './request-handler.ts';

const usage = [
  'usage: npm run fake-gateway -- [--port 8787] [--api-key test-key]',
  'Runs a fake Model Gateway that streams made-up answers, for trying parley without an account.',
  '',
].join('\n');

let values: { port: string; 'api-key': string; help?: boolean };
try {
  values = parseArgs({
    options: {
      port: { type: 'string', default: '8787' },
      'api-key': { type: 'string', default: 'test-key' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values;
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n${usage}`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`--port must be a port number, got ${values.port}\n`);
  process.exit(2);
}
const apiKey = values['api-key'];

const fake = await startFakeGateway({
  port,
  apiKey,
  // Slow enough that a person sees the reply stream in.
  defaultBehaviour: { delayBetweenChunksMs: 30 },
  onRequest: logRequest,
}).catch((error: NodeJS.ErrnoException) => {
  const reason =
    error.code === 'EADDRINUSE' ? 'the port is in use (is a fake gateway running already?)' : error.message;
  process.stderr.write(`fake gateway cannot start on port ${port}: ${reason}. Choose another with --port.\n`);
  process.exit(1);
});

process.stdout.write(
  [
    `fake Model Gateway listening on ${fake.baseUrl}`,
    '',
    'Point parley at it with:',
    `  GATEWAY_BASE_URL=${fake.baseUrl}`,
    `  GATEWAY_API_KEY=${apiKey}`,
    '',
    'Ctrl-C stops it.',
    '',
  ].join('\n'),
);

let isStopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (isStopping) {
      return;
    }
    isStopping = true;
    process.stdout.write(`\n${signal}: stopping the fake gateway\n`);
    fake.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('fake gateway: failed to close', error);
        process.exit(1);
      },
    );
  });
}

function logRequest(request: RecordedRequest): void {
  const body = typeof request.body === 'object' && request.body !== null ? request.body : {};
  const details = ['model', 'stream', 'n', 'response_format']
    .filter((key) => key in body)
    .map((key) => `${key}=${JSON.stringify((body as Record<string, unknown>)[key])}`)
    .join(' ');
  // Long-running play would otherwise keep every request in memory.
  fake.requests.length = 0;
  process.stdout.write(`${new Date().toISOString()} ${request.method} ${request.path} ${details}\n`);
}
