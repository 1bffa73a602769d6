import { encodeError, isPlatformError, type JsonValue, PlatformError } from '@platform/errors';
import { limits, type WebhookForward } from '@platform/schema';
import { readBodyBytes } from '../http/body.ts';
import { WEBHOOK_PREFIX } from '../http/paths.ts';
import { type Clock, systemClock } from '../kernel/clock.ts';
import { safeEqual } from '../kernel/crypto.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import type { Connections } from './connections.ts';
import type { OAuthTokens } from './oauth-tokens.ts';
import type { ProviderApp } from './provider-app.ts';

// Cookies are the receiving site's, forwarding headers describe proxies rather than the sender,
// and x-platform-* are the platform's own (spec 4.2).
const DROPPED = new Set(['cookie', 'forwarded', 'via', 'x-real-ip']);
const dropped = (name: string) =>
  DROPPED.has(name) || name.startsWith('x-forwarded-') || name.startsWith('x-platform-');

/** What the webhooks need. */
export interface WebhookOptions {
  readonly connections: Connections;
  /** The credentials and current OAuth access token the webhook Function receives. */
  readonly tokens: OAuthTokens;
  /** The organisation's apps, the providers among them. */
  readonly apps: () => readonly ProviderApp[];
  /** `{base_url}`, where webhook URLs are served. */
  readonly baseUrl: () => string;
  readonly print: LogWriter;
  readonly clock?: Clock | undefined;
}

/**
 * The body as text in the charset its `content-type` declares (UTF-8 when it declares none),
 * decoded strictly: `body` is the exact request text (spec 4.2), so bytes that are not text in
 * that charset, or a charset this runtime does not know, are refused with 415
 * `UNSUPPORTED_MEDIA_TYPE` rather than patched with replacement characters that no signature
 * over the raw body could match. A byte order mark is kept as part of the text.
 */
function decodeBody(bytes: Uint8Array, contentType: string): string {
  const declared = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1];
  const charset = declared ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { fatal: true, ignoreBOM: true });
  } catch {
    throw new PlatformError({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: `A webhook body's charset "${charset}" is not one the platform decodes; send UTF-8.`,
      details: { charset },
    });
  }
  try {
    return decoder.decode(bytes);
  } catch {
    throw new PlatformError({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message:
        declared === undefined
          ? 'A webhook body is text: it is not valid UTF-8 and declares no other charset in its content-type. Declare the charset it is in (e.g. "text/plain; charset=iso-8859-1"), or send UTF-8 or base64.'
          : `A webhook body is not valid ${charset}, the charset its content-type declares.`,
      details: { charset },
    });
  }
}

const notFound = () =>
  new PlatformError({ code: 'ROUTE_NOT_FOUND', message: 'No webhook is served at this address.' });

/**
 * The per-connection webhook URLs (spec 4.1, 4.2; docs/integrations.md): a POST of any content
 * type, at most 256 KiB, is forwarded to the provider's `webhook` Function for the connection,
 * as `{ method, headers, body, receivedAt }` (the body decoded strictly in its declared charset,
 * UTF-8 by default; 415 when it is not text in it). The sender gets the Function's result for a 2xx;
 * 401 and 403 pass through; other 4xx become 400; anything else 503, so the sender retries.
 * A wrong secret, an unknown connection and a provider without a webhook all look alike (404).
 */
export class IntegrationWebhooks {
  readonly #o: WebhookOptions;
  readonly #clock: Clock;

  constructor(options: WebhookOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
  }

  /** The secret webhook URL of connection `connectionId`. */
  url(connectionId: string): string {
    return `${this.#o.baseUrl()}${WEBHOOK_PREFIX}/${connectionId}/${this.#o.connections.webhookSecret(connectionId)}`;
  }

  /** Answers one delivery to the URL of `connectionId` presenting `secret`. */
  async receive(
    connectionId: string,
    secret: string,
    request: Request,
    requestId: string,
  ): Promise<Response> {
    if (!safeEqual(secret, this.#o.connections.webhookSecret(connectionId))) throw notFound();
    const connection = await this.#o.connections.find(connectionId);
    const provider = this.#o.apps().find((app) => app.appId === connection?.providerAppId);
    const contract = provider?.manifest.provides?.integration;
    if (
      !connection ||
      !provider ||
      contract?.name !== connection.integration ||
      !contract.webhook
    ) {
      throw notFound();
    }
    const max = limits.integration.webhookBodyMaxBytes;
    const bytes = await readBodyBytes(
      request,
      max,
      () =>
        new PlatformError({
          code: 'PAYLOAD_TOO_LARGE',
          message: `A webhook body is at most ${max} bytes.`,
          details: { maxBytes: max },
        }),
    );
    const body = decodeBody(bytes, request.headers.get('content-type') ?? '');
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      if (!dropped(name)) headers[name] = value;
    });
    const forward: WebhookForward = {
      method: request.method,
      headers,
      body,
      receivedAt: this.#clock.now().toISOString(),
    };
    try {
      if (await provider.paused()) {
        throw new PlatformError({
          code: 'INTEGRATION_PROVIDER_UNAVAILABLE',
          message: `${provider.appId} is paused until its owner verifies their account.`,
          retryable: true,
        });
      }
      const credentials = await this.#o.tokens.credentials(
        connection.id,
        contract,
        provider,
        requestId,
      );
      const result = await provider.invoke(contract.webhook.function, {
        requestId,
        input: forward as unknown as JsonValue,
        connectionId: connection.id,
        trigger: 'webhook',
        credentials,
        timeoutMs: limits.integration.operationTimeoutSeconds * 1000,
      });
      return Response.json(result);
    } catch (error) {
      return this.#failure(error, contract.name, requestId);
    }
  }

  // 401 and 403 pass through; another 4xx is 400 (its code kept); the rest 503, retried, as is
  // a connection waiting to be reconnected (the sender's retries may reach it reconnected).
  #failure(error: unknown, integration: string, requestId: string): Response {
    const known = isPlatformError(error) ? error : undefined;
    if (
      known &&
      known.status >= 400 &&
      known.status < 500 &&
      known.code !== 'INTEGRATION_RECONNECT_REQUIRED'
    ) {
      const status = known.status === 401 || known.status === 403 ? known.status : 400;
      return Response.json(encodeError(known, requestId), { status });
    }
    this.#o.print(
      `integration ${integration}: the webhook Function failed: ${known ? known.code : String(error)}`,
    );
    const unavailable = new PlatformError({
      code: 'INTEGRATION_PROVIDER_UNAVAILABLE',
      message: 'The webhook could not be handled now; send it again later.',
    });
    return Response.json(encodeError(unavailable, requestId), {
      status: 503,
      headers: { 'retry-after': '30' },
    });
  }
}
