import { PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { Hono } from 'hono';
import { scopeToApp } from '../http/app-scope.ts';
import { readBodyBytes, readJsonBody } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { ownerApiPaths } from '../http/paths.ts';
import type { Outbox } from '../outbox/outbox.ts';
import { capturedAsMessage } from './captured-message.ts';
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
 *
 * `POST /v1/apps/:appId/outbox/:emailId/receive` `{ to? }` delivers a captured (sent) email the
 * same way, built into the message a mail client would have received: to `to`, else to its
 * recipients that are the app's addresses, else to the app's first address; the same answer.
 * An unknown id is `EMAIL_NOT_FOUND`.
 */
export function mountInboundMailRoutes(
  app: Hono<BrokerEnv>,
  services: { appId: string; inbound: InboundMail; outbox: Outbox },
): void {
  scopeToApp(app, services.appId, [ownerApiPaths.mailInbound, ownerApiPaths.outboxReceive]);
  // A captured email delivered to the inbound email Function, as the message it would be.
  app.post(ownerApiPaths.outboxReceive, async (c) => {
    const email = await services.outbox.get(c.req.param('emailId') ?? '');
    const body = ((await readJsonBody(c.req.raw, { maxBytes: 16 * 1024 })) ?? {}) as {
      to?: unknown;
    };
    if (
      body.to !== undefined &&
      (!Array.isArray(body.to) || !body.to.every((a) => typeof a === 'string'))
    ) {
      throw new PlatformError({
        code: 'INVALID_REQUEST',
        message: 'to must be a list of the app’s addresses.',
        details: { field: 'to' },
      });
    }
    const addresses = services.inbound.addresses;
    // Its own recipients that are the app's; none (mail the app sent out): the app's first address.
    const own = email.to.filter((address) => addresses.match(address) !== undefined);
    const first = addresses.list()[0];
    const to = (body.to as string[] | undefined) ?? (own.length > 0 ? own : first ? [first] : []);
    if (to.length === 0) {
      throw new PlatformError({
        code: 'EMAIL_RECIPIENT_UNKNOWN',
        message: 'The app has no address to receive it at: platform.yaml declares no email alias.',
      });
    }
    const delivery = await services.inbound.receive({
      raw: capturedAsMessage(email, addresses.domain),
      envelopeFrom: null,
      recipients: to,
    });
    return c.json({
      id: delivery.id,
      requestId: delivery.requestId,
      function: delivery.functionName,
      to: delivery.to,
      result: delivery.result ?? null,
    });
  });
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
