import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { Hono } from 'hono';
import { scopeToApp } from '../http/app-scope.ts';
import { readBodyBytes } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { ownerApiPaths } from '../http/paths.ts';
import type { InboundMail } from './inbound-mail.ts';

const tooLarge = (max: number) =>
  new PlatformError({
    code: 'EMAIL_MESSAGE_TOO_LARGE',
    message: `The message is over ${max} bytes, the most inbound email takes.`,
    details: { max },
  });

/**
 * `POST /v1/apps/:appId/mail/inbound[?to=<address>…][&from=<address>]` with a message's bytes
 * (an `.eml` file) as the body: delivers it as the SMTP listener does, through
 * {@link InboundMail.receive}, and answers `{ id, requestId, function, to, result }`. Without
 * `to`, the app's addresses among the message's `To` and `Cc` are its recipients. It refuses
 * with the codes the SMTP listener maps to replies (`EMAIL_RECIPIENT_UNKNOWN`,
 * `EMAIL_MESSAGE_TOO_LARGE`, `EMAIL_MESSAGE_INVALID`, `EMAIL_HANDLER_FAILED`, …). Part of the
 * owner API (the dev token admits it).
 */
export function mountInboundMailRoutes(
  app: Hono<BrokerEnv>,
  services: { appId: string; inbound: InboundMail },
): void {
  scopeToApp(app, services.appId, [ownerApiPaths.mailInbound]);
  app.post(ownerApiPaths.mailInbound, async (c) => {
    const raw = await readBodyBytes(c.req.raw, limits.email.inbound.messageMaxBytes, tooLarge);
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
