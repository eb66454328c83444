import {
  type AtRestEncryption,
  EncryptionKeyError,
  encryptionFromEnvironment,
} from '../secrets/encryption-at-rest.ts';
import type { McpServerSettings } from '../tools/tools-file.ts';

/** What connectors need from the environment: where browsers reach parley, and the key that seals tokens. */
export interface ConnectorSetup {
  readonly publicUrl: string;
  readonly encryption: AtRestEncryption;
}

/**
 * PUBLIC_URL and CONNECTOR_TOKENS_KEY (with its _OLD rotation key), checked only when the tools
 * file has a server with `auth`: undefined without one, problems naming the variable (never a
 * value) when one is missing or wrong.
 */
export function connectorSetupOf({
  environment,
  servers,
}: {
  environment: Readonly<Record<string, string | undefined>>;
  servers: readonly McpServerSettings[];
}): { setup: ConnectorSetup | undefined; problems: string[] } {
  const names = servers
    .filter((settings) => settings.transport.kind === 'http' && settings.transport.auth !== undefined)
    .map((settings) => settings.name);
  if (names.length === 0) return { setup: undefined, problems: [] };
  const problems: string[] = [];
  const publicUrl = environment.PUBLIC_URL?.trim();
  if (!publicUrl) {
    problems.push(
      `PUBLIC_URL: the tools file's ${names.join(', ')} ${names.length === 1 ? 'needs' : 'need'} it, for the Connect links and the OAuth callback (docs/tools.md, Connectors)`,
    );
  }
  let encryption: AtRestEncryption | undefined;
  try {
    encryption = encryptionFromEnvironment({ environment, variable: 'CONNECTOR_TOKENS_KEY' });
    if (!encryption) {
      problems.push(
        `CONNECTOR_TOKENS_KEY: the tools file's ${names.join(', ')} ${names.length === 1 ? 'needs' : 'need'} a key to seal people's tokens (openssl rand -hex 32)`,
      );
    }
  } catch (error) {
    if (!(error instanceof EncryptionKeyError)) throw error;
    problems.push(error.message);
  }
  if (problems.length > 0 || !publicUrl || !encryption) return { setup: undefined, problems };
  return { setup: { publicUrl, encryption }, problems: [] };
}
