import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import { brokerApiPaths } from '../http/paths.ts';
import type { InboundMail } from './inbound-mail.ts';

const tooLarge = (size: number) => {
  const max = limits.email.inbound.messageMaxBytes;
  return new PlatformError({
    code: 'EMAIL_MESSAGE_TOO_LARGE',
    message: `The message is over ${max} bytes, the most inbound email takes.`,
    details: { size, max },
  });
};

/** The request body as bytes, refused past the inbound message limit while reading. */
async function readMessage(request: Request): Promise<Uint8Array> {
  const max = limits.email.inbound.messageMaxBytes;
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > max) throw tooLarge(declared);
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(total);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * `POST /_platform/broker/mail/inbound[?to=<address>…][&from=<address>]` with a message's bytes
 * (an `.eml` file) as the body: delivers it as the SMTP listener does, through
 * {@link InboundMail.receive}, and answers `{ id, requestId, function, to, result }`. Without
 * `to`, the app's addresses among the message's `To` and `Cc` are its recipients. It refuses
 * with the codes the SMTP listener maps to replies (`EMAIL_RECIPIENT_UNKNOWN`,
 * `EMAIL_MESSAGE_TOO_LARGE`, `EMAIL_MESSAGE_INVALID`, `EMAIL_HANDLER_FAILED`, …). Part of the
 * broker API (the dev token admits it).
 */
export function mountInboundMailRoutes(
  app: Hono<BrokerEnv>,
  services: { inbound: InboundMail },
): void {
  app.post(brokerApiPaths.mailInbound, async (c) => {
    const raw = await readMessage(c.req.raw);
    if (raw.byteLength === 0) {
      throw new PlatformError({
        code: 'EMAIL_MESSAGE_INVALID',
        message: 'The body is empty; send the message (an .eml file) as the body.',
      });
    }
    const to = c.req.queries('to');
    const delivery = await services.inbound.receive({
      raw,
      envelopeFrom: c.req.query('from') ?? null,
      ...(to && to.length > 0 ? { recipients: to } : {}),
    });
    return c.json({
      id: delivery.id,
      requestId: delivery.requestId,
      function: delivery.functionName,
      to: delivery.to,
      result: delivery.result ?? null,
    });
  });
}
