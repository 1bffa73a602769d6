import { type JsonObject, PlatformError } from '@platform/errors';
import { limits } from '@platform/schema';
import type { Context, Hono } from 'hono';
import { clearCookie, isSecure, readCookie, setCookie } from '../auth/cookies.ts';
import { checkActingAs } from '../http/acting-as.ts';
import { readBodyText, readJsonBody } from '../http/body.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import {
  CONNECT_PAGE_PREFIX,
  OAUTH_CALLBACK_PATH,
  integrationApiPaths as paths,
  WEBHOOK_PREFIX,
} from '../http/paths.ts';
import { randomSecret } from '../kernel/crypto.ts';
import { normalizeEmail } from '../kernel/email.ts';
import type { Memberships } from '../org/memberships.ts';
import { pageResponse } from '../pages/page-shell.ts';
import type { Bindings } from './bindings.ts';
import {
  connectedPage,
  connectPage,
  linkUnusablePage,
  otherBrowserPage,
  signInFailedPage,
  signInIncompletePage,
} from './connect-page.ts';
import type { Connections } from './connections.ts';
import { CREDENTIAL_VALUE_MAX_LENGTH } from './credential-values.ts';
import { DEV_SESSION_ID, type DevIntegrationModes } from './dev-integration-modes.ts';
import type { IntegrationAdmin } from './integration-admin.ts';
import type { IntegrationAudit } from './integration-audit.ts';
import type { IntegrationEvents } from './integration-events.ts';
import { oauthBrowserCookie } from './oauth-states.ts';
import type { IntegrationWebhooks } from './webhooks.ts';

/** What the integration routes of one app need. */
export interface IntegrationRouteServices {
  /** The app these owner routes answer for; any other id in the path is `APP_NOT_FOUND`. */
  readonly appId: string;
  readonly admin: IntegrationAdmin;
  readonly connections: Connections;
  readonly bindings: Bindings;
  readonly audit: IntegrationAudit;
  readonly modes: DevIntegrationModes;
  readonly webhooks: IntegrationWebhooks;
  readonly events: IntegrationEvents;
  readonly members: Memberships;
}

// Twenty credentials of the longest value, URL-encoded, with room to spare.
const MAX_CONNECT_FORM_BYTES = 20 * CREDENTIAL_VALUE_MAX_LENGTH * 3 + 4096;

const invalid = (message: string, field: string) =>
  new PlatformError({ code: 'INVALID_REQUEST', message, details: { field } });

/**
 * The integration routes of an app (docs/integrations.md). On the owner API (dev token; a
 * change names the member on whose authority it is made, `actingAs`):
 *
 * - `GET /v1/apps/:appId/connections`: the connections to the integration the app publishes,
 *   never a credential value;
 * - `POST /v1/apps/:appId/connections/links` `{ kind, actingAs, connectionId?, bind? }`: a
 *   one-time link to the page where that member enters the credentials (`{ url, expiresAt }`);
 * - `GET /v1/apps/:appId/connections/:connectionId/webhook?actingAs=`: its secret webhook URL,
 *   for someone who manages the connection;
 * - `DELETE /v1/apps/:appId/connections/:connectionId?actingAs=`: removes it and its bindings;
 * - `GET /v1/apps/:appId/bindings`, `PUT /v1/apps/:appId/bindings/:slot`
 *   `{ connectionId, actingAs }` (with an agent credential, the agent's account acts, under the
 *   agents' rule of spec 5.4), `DELETE /v1/apps/:appId/bindings/:slot?actingAs=`;
 * - `GET|PUT /v1/apps/:appId/dev/integrations`: the session's live slot (`{ slot, mode }`) and
 *   test connection (`{ testConnection, actingAs }`, chosen on the authority of the member
 *   acting or the agent), answered as `{ sessionId, liveSlot, testConnection, environment,
 *   slots }` (`slots`: each declared slot's `{ slot, integration, account, mode }`);
 * - `GET /v1/apps/:appId/integration-calls`: the audit of calls the app made or served;
 *   `GET …/integration-calls/per-minute`: those of each minute of the last hour, `{ until,
 *   perMinute: { ok, failed } }` (the console's chart);
 * - `GET /v1/apps/:appId/integration-events`: the event deliveries to the app's slots, and
 *   `POST /v1/apps/:appId/dev/integration-events` `{ sessionId?, integrationName, type, data? }`:
 *   a synthetic event with a new id delivered now to the slot `integrationName` (`data`
 *   defaults to the event's declared `fake`);
 * - `POST /v1/apps/:appId/integration-events/:deliveryId/replay`: a failed delivery delivered
 *   again with the payload it kept (`{ delivery }`); a delivered or pending one is
 *   `INVALID_REQUEST`, an unknown or expired one `INTEGRATION_EVENT_DELIVERY_NOT_FOUND`.
 *
 * And, admitted by the secret in their addresses: the connect page,
 * `GET|POST /v1/custom-integrations/connect/:token`, the webhook URLs,
 * `POST /v1/custom-integrations/webhooks/:connectionId/:secret`, and the OAuth redirect URI,
 * `GET /v1/custom-integrations/oauth/callback?code=&state=` (its `state` is the secret).
 */
export function mountIntegrationRoutes(
  hono: Hono<BrokerEnv>,
  services: IntegrationRouteServices,
): void {
  const { appId, admin, members } = services;
  const checkApp = (c: Context<BrokerEnv>) => {
    const asked = c.req.param('appId');
    if (asked !== appId) {
      throw new PlatformError({
        code: 'APP_NOT_FOUND',
        message: `This broker serves the app "${appId}", not "${asked}".`,
        details: { appId: asked ?? '' },
      });
    }
  };
  const actor = async (c: Context<BrokerEnv>, email: unknown): Promise<string> => {
    if (typeof email !== 'string' || email === '') {
      throw invalid('actingAs must be the email address of the member acting.', 'actingAs');
    }
    const wanted = normalizeEmail(email);
    const found = (await members.list()).find((m) => m.email === wanted);
    if (!found) {
      throw new PlatformError({
        code: 'MEMBER_NOT_FOUND',
        message: `${email} is not a member of the organisation.`,
        details: { email },
      });
    }
    checkActingAs(c, found.accountId, wanted);
    return found.accountId;
  };
  const json = async (c: Context<BrokerEnv>) =>
    ((await readJsonBody(c.req.raw, { maxBytes: 16 * 1024 })) ?? {}) as Record<string, unknown>;

  hono.get(paths.connections, async (c) => {
    checkApp(c);
    const contract = admin.publishedBy(appId);
    return c.json({ connections: await services.connections.list(contract.name) });
  });
  hono.post(paths.connectLinks, async (c) => {
    checkApp(c);
    const body = await json(c);
    const kind = body.kind ?? 'personal';
    if (kind !== 'personal' && kind !== 'organisation') {
      throw invalid('kind must be "personal" or "organisation".', 'kind');
    }
    const bind = body.bind as { appId?: unknown; slot?: unknown } | undefined;
    if (bind !== undefined && (typeof bind?.appId !== 'string' || typeof bind.slot !== 'string')) {
      throw invalid('bind is { "appId": "<consumer app>", "slot": "<slot name>" }.', 'bind');
    }
    if (body.connectionId !== undefined && typeof body.connectionId !== 'string') {
      throw invalid('connectionId must be a connection id.', 'connectionId');
    }
    const link = await admin.createLink(await actor(c, body.actingAs), {
      providerAppId: appId,
      kind,
      connectionId: body.connectionId as string | undefined,
      bind: bind ? { appId: bind.appId as string, slot: bind.slot as string } : undefined,
    });
    return c.json(link, 201);
  });
  hono.get(paths.webhookUrl, async (c) => {
    checkApp(c);
    const connection = await services.connections.get(c.req.param('connectionId') ?? '');
    await admin.checkManage(await actor(c, c.req.query('actingAs')), connection);
    return c.json({ url: services.webhooks.url(connection.id) });
  });
  hono.delete(paths.connection, async (c) => {
    checkApp(c);
    await admin.removeConnection(
      await actor(c, c.req.query('actingAs')),
      c.req.param('connectionId') ?? '',
    );
    return c.body(null, 204);
  });

  hono.get(paths.bindings, async (c) => {
    checkApp(c);
    return c.json({ bindings: await services.bindings.list(appId) });
  });
  hono.put(paths.binding, async (c) => {
    checkApp(c);
    const body = await json(c);
    if (typeof body.connectionId !== 'string') {
      throw invalid('connectionId must be a connection id.', 'connectionId');
    }
    // An agent binds for its own account, under the agents' rule; a person names themselves.
    const agent = c.get('agent');
    const binding = await admin.bind(
      agent?.accountId ?? (await actor(c, body.actingAs)),
      appId,
      c.req.param('slot') ?? '',
      body.connectionId,
      agent,
    );
    return c.json({ binding });
  });
  hono.delete(paths.binding, async (c) => {
    checkApp(c);
    await admin.unbind(await actor(c, c.req.query('actingAs')), appId, c.req.param('slot') ?? '');
    return c.body(null, 204);
  });

  const devState = () => ({
    sessionId: DEV_SESSION_ID,
    liveSlot: services.modes.liveSlot(appId) ?? null,
    testConnection: services.modes.testConnection(appId) ?? null,
    environment: admin.environment,
    slots: admin.slotModes(appId),
  });
  hono.get(paths.devModes, (c) => {
    checkApp(c);
    return c.json(devState());
  });
  // `platform dev` runs one development session per app (docs/agents.md); naming another is a
  // mistake worth an answer, leaving it out means that one.
  const checkSession = (sessionId: unknown) => {
    if (sessionId !== undefined && sessionId !== DEV_SESSION_ID) {
      throw invalid(
        `sessionId must be "${DEV_SESSION_ID}", the one development session of ${appId}.`,
        'sessionId',
      );
    }
  };
  hono.put(paths.devModes, async (c) => {
    checkApp(c);
    const body = await json(c);
    checkSession(body.sessionId);
    if (body.slot !== undefined) {
      if (typeof body.slot !== 'string') throw invalid('slot must be a slot name.', 'slot');
      if (body.mode !== 'live' && body.mode !== 'fake') {
        throw invalid('mode must be "live" or "fake".', 'mode');
      }
      admin.setMode(appId, body.slot, body.mode);
    }
    if (body.testConnection !== undefined) {
      if (body.testConnection !== null && typeof body.testConnection !== 'string') {
        throw invalid('testConnection must be a connection id or null.', 'testConnection');
      }
      // Choosing a connection is done on someone's authority (an agent's own account, else the
      // member named by actingAs); clearing it takes nothing from anyone.
      const agent = c.get('agent');
      const chooser =
        body.testConnection === null
          ? undefined
          : (agent?.accountId ?? (await actor(c, body.actingAs)));
      await admin.setTestConnection(appId, body.testConnection, chooser);
    }
    return c.json(devState());
  });

  hono.get(paths.events, async (c) => {
    checkApp(c);
    return c.json({ deliveries: await services.events.list(appId) });
  });
  hono.post(paths.eventReplay, async (c) => {
    checkApp(c);
    const delivery = await services.events.replay(
      appId,
      c.req.param('deliveryId') ?? '',
      c.get('requestId'),
    );
    return c.json({ delivery });
  });
  hono.post(paths.devEvents, async (c) => {
    checkApp(c);
    const body = await json(c);
    checkSession(body.sessionId);
    if (typeof body.integrationName !== 'string' || body.integrationName === '') {
      throw invalid(
        'integrationName must be the name of one of the app’s integration slots (platform.yaml integrations).',
        'integrationName',
      );
    }
    if (typeof body.type !== 'string') throw invalid('type must be an event type.', 'type');
    const data = body.data;
    if (data !== undefined && (typeof data !== 'object' || data === null || Array.isArray(data))) {
      throw invalid('data must be a JSON object.', 'data');
    }
    const delivery = await services.events.inject(
      appId,
      body.integrationName,
      { type: body.type, ...(data === undefined ? {} : { data: data as JsonObject }) },
      c.get('requestId'),
    );
    return c.json({ delivery }, 201);
  });
  hono.get(paths.calls, async (c) => {
    checkApp(c);
    return c.json({ calls: await services.audit.list(appId) });
  });
  hono.get(paths.callsPerMinute, async (c) => {
    checkApp(c);
    return c.json(await services.audit.perMinute(appId, new Date()));
  });

  hono.post(`${WEBHOOK_PREFIX}/:connectionId/:secret`, (c) =>
    services.webhooks.receive(
      c.req.param('connectionId'),
      c.req.param('secret'),
      c.req.raw,
      c.get('requestId'),
    ),
  );

  hono.get(`${CONNECT_PAGE_PREFIX}/:token`, async (c) => {
    const opened = await admin.openLink(c.req.param('token'));
    if (!opened) return pageResponse(linkUnusablePage, { status: 410 });
    return pageResponse(connectPage(opened.contract, opened.link));
  });
  hono.post(`${CONNECT_PAGE_PREFIX}/:token`, async (c) => {
    const token = c.req.param('token');
    const opened = await admin.openLink(token);
    if (!opened) return pageResponse(linkUnusablePage, { status: 410 });
    const type = c.req.header('content-type') ?? '';
    if (!type.startsWith('application/x-www-form-urlencoded')) {
      throw new PlatformError({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'The connect form is posted as application/x-www-form-urlencoded.',
      });
    }
    const entered = Object.fromEntries(
      new URLSearchParams(await readBodyText(c.req.raw, MAX_CONNECT_FORM_BYTES)),
    );
    // The secret that binds an OAuth sign-in to this browser (RFC 6749 10.12): only its hash is
    // stored with the state, and the callback completes the sign-in only where it comes back.
    const browserSecret = randomSecret();
    try {
      const submitted = await admin.submit(token, entered, browserSecret);
      if (submitted.redirect !== null) {
        const cookie = setCookie(oauthBrowserCookie(submitted.state), browserSecret, {
          secure: isSecure(c.req.raw, undefined),
          maxAgeSeconds: limits.integration.oauthStateSeconds,
        });
        return new Response(null, {
          status: 303,
          headers: { location: submitted.redirect, 'set-cookie': cookie },
        });
      }
      return pageResponse(connectedPage(opened.contract, submitted.binding?.slot ?? null));
    } catch (error) {
      if (!(error instanceof PlatformError) || error.status >= 500) throw error;
      // Refused values or rules: the form again, empty, with the reason (never a value).
      const status = error.status;
      const again = await admin.openLink(token);
      if (!again) return pageResponse(linkUnusablePage, { status: 410 });
      return pageResponse(connectPage(again.contract, again.link, error.message), { status });
    }
  });

  // The provider sends the person back here after signing in (spec 2.10), with `code` and the
  // one-time `state`, or with `error` when they declined. The sign-in completes only in the
  // browser holding the state's cookie; anywhere else it is spent and nothing is stored.
  hono.get(OAUTH_CALLBACK_PATH, async (c) => {
    const state = c.req.query('state') ?? '';
    const code = c.req.query('code');
    const declined = c.req.query('error');
    const cookie = state === '' ? undefined : oauthBrowserCookie(state);
    const browserSecret = cookie === undefined ? undefined : readCookie(c.req.raw, cookie);
    // The cookie has done its job once the callback answers, whatever the answer.
    const setCookies =
      browserSecret === undefined || cookie === undefined
        ? []
        : [clearCookie(cookie, isSecure(c.req.raw, undefined))];
    if (declined !== undefined || code === undefined || code === '') {
      // The sign-in ends here either way: its state is not used again.
      if (state !== '') await admin.abandonSignIn(state);
      return pageResponse(signInIncompletePage(declined ?? 'no authorization code'), {
        status: 400,
        setCookies,
      });
    }
    try {
      const { contract, binding } = await admin.finishSignIn(
        state,
        code,
        c.get('requestId'),
        browserSecret,
      );
      return pageResponse(connectedPage(contract, binding?.slot ?? null), { setCookies });
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      if (error.details?.reason === 'link-unusable') {
        return pageResponse(linkUnusablePage, { status: 410, setCookies });
      }
      if (error.details?.reason === 'other-browser') {
        return pageResponse(otherBrowserPage, { status: 403, setCookies });
      }
      return pageResponse(signInFailedPage(error.message), {
        status: error.status >= 500 ? 502 : error.status,
        setCookies,
      });
    }
  });
}
