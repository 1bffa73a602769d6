import { type JsonObject, PlatformError } from '@platform/errors';
import type { Declarations, Redactor } from '@platform/schema/contract';
import type { RuntimeClient } from './transport.ts';
import type { Logger, SecretsClient } from './types.ts';

const FLUSH_AT = 50;

/**
 * `ctx.secrets`: only declared names (checked here first); values come from the broker. Every
 * value read is added to `redactor`, so the invocation's logger redacts it.
 */
export function createSecrets(
  client: RuntimeClient,
  declared: Declarations,
  redactor: Redactor,
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
    redactor.add([value]);
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
export function createLogger(client: RuntimeClient, redactor: Redactor): BufferedLogger {
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
        message: redactor.text(String(message)),
        ...(fields === undefined ? {} : { fields: redactor.value(jsonFields(fields)) }),
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

// The fields as the JSON they travel as (a bigint as its digits, an Error as its name and
// message), so the redaction sees exactly what is sent.
function jsonFields(fields: Record<string, unknown>): JsonObject {
  const json = JSON.stringify(fields, (_key, value: unknown) => {
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Error) return { name: value.name, message: value.message };
    return value;
  });
  const parsed: unknown = json === undefined ? {} : JSON.parse(json);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? (parsed as JsonObject)
    : {};
}
