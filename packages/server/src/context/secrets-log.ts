import { type JsonObject, PlatformError } from '@platform/errors';
import type { Declarations } from '@platform/schema/contract';
import type { RuntimeClient } from './transport.ts';
import type { Logger, SecretsClient } from './types.ts';

const REDACTED = '[REDACTED]';
const FLUSH_AT = 50;

/** Secret values the invocation has read, so the logger can redact them. */
export class SecretMemory {
  readonly #values = new Set<string>();

  remember(value: string): void {
    if (value !== '') this.#values.add(value);
  }

  /** `text` with every remembered value replaced by `[REDACTED]`, longest first. */
  redact(text: string): string {
    if (this.#values.size === 0) return text;
    let out = text;
    for (const value of [...this.#values].sort((a, b) => b.length - a.length)) {
      out = out.split(value).join(REDACTED);
    }
    return out;
  }
}

/** `ctx.secrets`: only declared names (checked here first); values come from the broker. */
export function createSecrets(
  client: RuntimeClient,
  declared: Declarations,
  memory: SecretMemory,
): SecretsClient {
  const get = async (name: string): Promise<string | undefined> => {
    if (typeof name !== 'string') throw new TypeError('Secret name must be a string');
    if (!declared.secrets.includes(name)) {
      throw new PlatformError({
        code: 'SECRET_NOT_DECLARED',
        message: `The secret ${name} is not declared in platform.yaml.`,
        details: { name },
      });
    }
    const { value } = await client.call('secretsGet', {}, { name });
    if (value === null) return undefined;
    memory.remember(value);
    return value;
  };
  return {
    get,
    async require(name) {
      const value = await get(name);
      if (value === undefined) {
        throw new PlatformError({
          code: 'SECRET_NOT_SET',
          message: `The secret ${name} is declared but has no value.`,
          details: { name },
        });
      }
      return value;
    },
  };
}

/** A logger that batches entries and flushes them to the `log` route. */
export interface BufferedLogger extends Logger {
  /** Sends what is buffered; the host calls it when the invocation ends. */
  flush(): Promise<void>;
}

/** `ctx.log`: structured, redacted, batched. Logging never throws into the handler. */
export function createLogger(client: RuntimeClient, memory: SecretMemory): BufferedLogger {
  let buffer: {
    level: 'debug' | 'info' | 'warn' | 'error';
    message: string;
    fields?: JsonObject;
    at: string;
  }[] = [];
  let pending: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    if (buffer.length === 0) return pending;
    const entries = buffer;
    buffer = [];
    pending = pending.then(() =>
      client.call('log', {}, { entries }).then(
        () => undefined,
        () => undefined, // Losing a log batch must not fail the Function.
      ),
    );
    return pending;
  };
  const write =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (message: string, fields?: Record<string, unknown>) => {
      const entry = {
        level,
        message: memory.redact(String(message)),
        ...(fields === undefined ? {} : { fields: redactFields(fields, memory) }),
        at: new Date().toISOString(),
      };
      buffer.push(entry);
      if (buffer.length >= FLUSH_AT) void flush();
    };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    flush,
  };
}

function redactFields(fields: Record<string, unknown>, memory: SecretMemory): JsonObject {
  const json = JSON.stringify(fields, (_key, value: unknown) => {
    if (typeof value === 'string') return memory.redact(value);
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Error) return { name: value.name, message: memory.redact(value.message) };
    return value;
  });
  const parsed: unknown = json === undefined ? {} : JSON.parse(json);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as JsonObject)
    : {};
}
