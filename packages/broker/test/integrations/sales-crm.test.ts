// Integration calls between two apps of one organisation (examples/sales-crm): the consumer's
// slot answers the contract's fake until switched live; live calls need a binding, pass every
// authority check of spec 5.4 on every call, and run the provider's operation Function for the
// connection, whose credentials are entered on the connect page, stored sealed and never shown.
import { cp, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorFromResponse, type PlatformError } from '@platform/errors';
import { browserRoutes } from '@platform/schema/routes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkspace, type WorkspaceServer } from '../../src/app/start-workspace.ts';
import { Accounts } from '../../src/auth/accounts.ts';
import { main } from '../../src/cli/main.ts';
import { Memberships } from '../../src/org/memberships.ts';
import { TestClock } from '../auth/helpers.ts';
import { expectAccessiblePanel } from '../helpers/axe.ts';
import { launchChromium, openPage } from '../helpers/chromium.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { tempDir } from '../helpers/temp-dir.ts';

const example = new URL('../../../../examples/sales-crm', import.meta.url).pathname;
const KEY = 'crm_live_key_7f3a9c';
const BAD_KEY = 'wrong_key_5b2e81';

let root: { path: string; remove: () => Promise<void> };
let ws: WorkspaceServer;
const lines: string[] = [];
/** The injected delivery whose handler failed, replayed later from the console. */
let failedDelivery: { id: string; eventId: string } | undefined;
/** Every body the tests read, checked at the end for credential values. */
const seen: string[] = [];

// A Function of the sales app that calls any slot and operation, for the error cases.
const callAny = `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ slot: s.string(), operation: s.string(), input: s.optional(s.object({ email: s.optional(s.string()) })) }),
  handler: async ({ input, integrations }) =>
    integrations.use(input.slot).call(input.operation, input.input ?? {}),
});
`;

beforeAll(async () => {
  root = await tempDir('sales-crm-');
  await cp(example, root.path, { recursive: true });
  const sales = join(root.path, 'sales');
  const yaml = await readFile(join(sales, 'platform.yaml'), 'utf8');
  await writeText(
    join(sales, 'platform.yaml'),
    yaml.replace(
      'functions:\n',
      'functions:\n  - name: callAny\n    entrypoint: functions/call-any/index.ts\n    access: public\n',
    ),
  );
  await writeText(join(sales, 'functions/call-any/index.ts'), callAny);
  // The copy's webhook also refuses two events the way a provider does: 403 and 409.
  const webhook = join(root.path, 'crm/functions/receive-webhook/index.ts');
  const source = await readFile(webhook, 'utf8');
  const keyCheck = "    if (event === 'crash')";
  await writeText(
    webhook,
    source.replace(
      keyCheck,
      `    if (event === 'account.locked') throw errors.forbidden('CRM_ACCOUNT_LOCKED', 'This account may not send events.');
    if (event === 'contact.stale') throw errors.conflict('CRM_STALE', 'A newer change was received.');
${keyCheck}`,
    ),
  );
  ws = await startWorkspace({
    appDirs: [join(root.path, 'crm'), sales],
    workspaceDir: root.path,
    port: 0,
    watch: false,
    databaseUrl: '',
    snapshotPath: testSnapshotPath,
    logWriter: (line) => lines.push(line),
  });
  const central = ws.apps[0]!.broker.central;
  const accounts = new Accounts(central, central, new TestClock());
  const members = new Memberships(central);
  const [administrator] = (await members.list()).filter((m) => m.role === 'administrator');
  // ada: an organisation administrator; bob owns sales; cy is a member. All were invited.
  for (const name of ['ada', 'bob', 'cy']) {
    await members.invite(administrator!.accountId, `${name}@example.com`);
    await accounts.create(`${name}@example.com`, 'confirmed');
  }
  const ids = await ids_();
  await members.setRole(administrator!.accountId, 'ada@example.com', 'administrator');
  await ws.authority.setOwner('crm', ids.ada);
  await ws.authority.setOwner('sales', ids.bob);
}, 180_000);

afterAll(async () => {
  await ws?.close();
  await root?.remove();
});

async function writeText(path: string, text: string) {
  const { mkdir, writeFile } = await import('node:fs/promises');
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, text);
}

async function ids_(): Promise<Record<'ada' | 'bob' | 'cy', string>> {
  const { rows } = await ws.apps[0]!.broker.central.query<{ id: string; email: string }>(
    'SELECT id, email FROM platform.accounts',
  );
  const byName = Object.fromEntries(rows.map((r) => [r.email.split('@')[0], r.id]));
  return byName as Record<'ada' | 'bob' | 'cy', string>;
}

const owner = (path: string, init: RequestInit = {}) =>
  fetch(`${ws.url}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${ws.devToken}`,
      'content-type': 'application/json',
      ...init.headers,
    },
  });

async function ok<T>(response: Response): Promise<T> {
  const text = await response.text();
  seen.push(text);
  if (!response.ok) throw new Error(`${response.status}: ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}

async function refused(response: Response): Promise<PlatformError> {
  const text = await response.text();
  seen.push(text);
  return errorFromResponse(
    new Response(text, { status: response.status, headers: response.headers }),
  );
}

// Node does not resolve `<app>.localhost`: the app's own port on loopback is the same server.
const salesUrl = () => `http://127.0.0.1:${ws.app('sales')!.port}`;

/** The sales app's example route: looks a customer up through the `crm` slot. */
const lookup = (email = 'grace@example.com') =>
  fetch(`${salesUrl()}/api/customers/lookup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });

const callAnyFn = (body: unknown) =>
  fetch(`${salesUrl()}${browserRoutes.functionCall.path.replace(':name', 'callAny')}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function connectLink(body: Record<string, unknown>): Promise<string> {
  const { url } = await ok<{ url: string }>(
    await owner('/v1/apps/crm/connections/links', { method: 'POST', body: JSON.stringify(body) }),
  );
  return url;
}

const submit = (url: string, fields: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

async function connections(): Promise<{ id: string; kind: string; condition: string }[]> {
  return (
    await ok<{ connections: { id: string; kind: string; condition: string }[] }>(
      await owner('/v1/apps/crm/connections'),
    )
  ).connections;
}

const setMode = (mode: 'live' | 'fake') =>
  owner('/v1/apps/sales/dev/integrations', {
    method: 'PUT',
    body: JSON.stringify({ slot: 'crm', mode }),
  });

describe('integration calls between apps of one organisation', { timeout: 120_000 }, () => {
  it('answer the contract’s fake by default, without running the provider', async () => {
    const { result: fake } = await ok<{ result: unknown }>(await lookup());
    expect(fake).toEqual({
      contact: { email: 'ada@example.com', name: 'Ada (fake)' },
      region: 'eu',
    });
    const { rows } = await ws.app('crm')!.broker.db.query('SELECT count(*)::int AS n FROM lookups');
    expect(rows[0]).toEqual({ n: 0 });
  });

  it('check the slot, the operation and its capability in every mode', async () => {
    const noSlot = await refused(await callAnyFn({ slot: 'billing', operation: 'x.y' }));
    expect(noSlot.code).toBe('INTEGRATION_SLOT_NOT_DECLARED');
    const noOp = await refused(await callAnyFn({ slot: 'crm', operation: 'contacts.delete' }));
    expect(noOp.code).toBe('INTEGRATION_OPERATION_NOT_FOUND');
  });

  it('live: need a binding first', async () => {
    await ok(await setMode('live'));
    const error = await refused(await lookup());
    expect(error.code).toBe('INTEGRATION_BINDING_REQUIRED');
    expect(error.details).toMatchObject({ reason: 'unbound' });
  });

  it('connect on the page (credentials write-only) and bind in one step; the provider runs for the connection', async () => {
    const url = await connectLink({
      kind: 'organisation',
      actingAs: 'ada@example.com',
      bind: { appId: 'sales', slot: 'crm' },
    });
    expect(url.startsWith(`${ws.url}/v1/custom-integrations/connect/`)).toBe(true);
    const page = await fetch(url);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toMatch(/name="CRM_API_KEY" type="password"[^>]* required/);
    expect(html).toMatch(/name="CRM_REGION" type="text"/);
    expect(html).not.toMatch(/name="CRM_REGION"[^>]* required/);

    // A value with a line break is refused: the form again, empty, nothing stored.
    const bad = await submit(url, { CRM_API_KEY: `${KEY}\nX-Evil: 1`, CRM_REGION: 'us' });
    expect(bad.status).toBe(400);
    const badHtml = await bad.text();
    expect(badHtml).toContain('control character');
    expect(badHtml).not.toContain(KEY);
    expect(await connections()).toEqual([]);

    const done = await submit(url, { CRM_API_KEY: KEY, CRM_REGION: 'us' });
    expect(done.status).toBe(200);
    seen.push(await done.text());
    expect((await submit(url, { CRM_API_KEY: KEY })).status).toBe(410);

    const [connection] = await connections();
    expect(connection).toMatchObject({ kind: 'organisation', condition: 'active' });
    const { result: live } = await ok<{ result: unknown }>(await lookup());
    expect(live).toEqual({
      contact: { email: 'grace@example.com', name: 'Grace Hopper' },
      region: 'us',
    });
    // The provider ran as its system identity for the connection: auth.connection_id() in SQL.
    const { rows } = await ws
      .app('crm')!
      .broker.db.query('SELECT email, connection_id, consumer_app_id FROM lookups');
    expect(rows).toEqual([
      { email: 'grace@example.com', connection_id: connection!.id, consumer_app_id: 'sales' },
    ]);
  });

  it('run a provider Function invoked directly for the session’s test connection only', async () => {
    const crmUrl = `http://127.0.0.1:${ws.app('crm')!.port}`;
    const invoke = () =>
      fetch(`${crmUrl}/v1/apps/crm/invoke/findContact`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.devToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input: { email: 'ada@example.com' } }),
      });
    expect((await refused(await invoke())).code).toBe('INTEGRATION_TEST_CONNECTION_REQUIRED');
    const [connection] = await connections();
    const choose = (body: Record<string, unknown>) =>
      owner('/v1/apps/crm/dev/integrations', { method: 'PUT', body: JSON.stringify(body) });
    // Chosen on someone's authority: Edit access to the provider app (cy is only a member).
    const nobody = await refused(await choose({ testConnection: connection!.id }));
    expect(nobody.code).toBe('INVALID_REQUEST');
    const byCy = await refused(
      await choose({ testConnection: connection!.id, actingAs: 'cy@example.com' }),
    );
    expect(byCy.code).toBe('PERMISSION_DENIED');
    expect(byCy.details).toMatchObject({ rule: 'provider-edit' });
    expect((await refused(await invoke())).code).toBe('INTEGRATION_TEST_CONNECTION_REQUIRED');
    await ok(await choose({ testConnection: connection!.id, actingAs: 'ada@example.com' }));
    const { result } = await ok<{ result: unknown }>(await invoke());
    expect(result).toEqual({
      contact: { email: 'ada@example.com', name: 'Ada Lovelace' },
      region: 'us',
    });
    const { rows } = await ws
      .app('crm')!
      .broker.db.query("SELECT connection_id FROM lookups WHERE email = 'ada@example.com'");
    expect(rows).toEqual([{ connection_id: connection!.id }]);
  });

  it("forward a POST to the connection's secret webhook URL to the provider's webhook Function", async () => {
    const [connection] = await connections();
    const { url } = await ok<{ url: string }>(
      await owner(`/v1/apps/crm/connections/${connection!.id}/webhook?actingAs=ada@example.com`),
    );
    expect(url.startsWith(`${ws.url}/v1/custom-integrations/webhooks/${connection!.id}/`)).toBe(
      true,
    );
    const byCy = await refused(
      await owner(`/v1/apps/crm/connections/${connection!.id}/webhook?actingAs=cy@example.com`),
    );
    expect(byCy.code).toBe('PERMISSION_DENIED');
    const post = (
      body: string | Uint8Array<ArrayBuffer>,
      headers: Record<string, string>,
      to = url,
    ) => fetch(to, { method: 'POST', headers: { 'x-crm-key': KEY, ...headers }, body });
    const body = '{"id": 7,\n  "name": "Grace \u00e9"}  ';
    const delivered = await post(body, {
      'content-type': 'application/json',
      'x-crm-event': 'contact.updated',
      cookie: 'session=abc',
      forwarded: 'for=203.0.113.9',
      'x-forwarded-for': '203.0.113.9',
      'x-platform-user': 'someone',
    });
    expect(delivered.status).toBe(200);
    // In development an emit is checked and delivers nothing.
    expect(await delivered.json()).toEqual({ received: 'contact.updated', deliveries: 0 });
    const { rows } = await ws
      .app('crm')!
      .broker.db.query<{ connection_id: string; body: string; headers: Record<string, string> }>(
        'SELECT connection_id, body, headers FROM webhook_deliveries',
      );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.connection_id).toBe(connection!.id);
    expect(rows[0]!.body).toBe(body);
    expect(rows[0]!.headers['x-crm-event']).toBe('contact.updated');
    expect(rows[0]!.headers['content-type']).toBe('application/json');
    for (const gone of ['cookie', 'forwarded', 'x-forwarded-for', 'x-platform-user']) {
      expect(rows[0]!.headers).not.toHaveProperty(gone);
    }
    // The example keeps no credential: the key proved the delivery and is not stored.
    expect(rows[0]!.headers).not.toHaveProperty('x-crm-key');
    expect(JSON.stringify(rows)).not.toContain(KEY);
    const plain = await post('ping', { 'content-type': 'text/plain', 'x-crm-event': 'ping' });
    expect(plain.status).toBe(200);

    // A body in a declared charset arrives as its text; bytes that are not text in their
    // charset (UTF-8 when none is declared) are refused, never patched with U+FFFD.
    const latin1 = await post(new Uint8Array([0x47, 0x72, 0xe2, 0x63, 0x65]), {
      'content-type': 'text/plain; charset=ISO-8859-1',
      'x-crm-event': 'latin1',
    });
    expect(latin1.status).toBe(200);
    const stored = await ws
      .app('crm')!
      .broker.db.query<{ body: string }>(
        "SELECT body FROM webhook_deliveries WHERE event = 'latin1'",
      );
    expect(stored.rows).toEqual([{ body: 'Gr\u00e2ce' }]);
    for (const [bytes, type] of [
      [new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), 'application/octet-stream'],
      [new Uint8Array([0x7b, 0xc3, 0x28, 0x7d]), 'application/json'],
      [new Uint8Array([0x7b, 0x7d]), 'application/json; charset=x-unknown-charset'],
    ] as const) {
      const refusedBody = await post(bytes, { 'content-type': type, 'x-crm-event': 'binary' });
      expect(refusedBody.status, type).toBe(415);
      const error = await refused(refusedBody);
      expect(error.code, type).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(error.message, type).toMatch(/charset|UTF-8/);
    }

    const missing = await post('{}', { 'content-type': 'application/json' });
    expect(missing.status).toBe(400);
    expect((await refused(missing)).code).toBe('CRM_EVENT_MISSING');
    const wrongKey = await post('{}', { 'x-crm-event': 'x', 'x-crm-key': 'nope' });
    expect(wrongKey.status).toBe(401);
    expect((await refused(wrongKey)).code).toBe('CRM_KEY_MISMATCH');
    // 401 and 403 pass through with the Function's code; any other 4xx reaches the sender as 400.
    const forbidden = await post('{}', { 'x-crm-event': 'account.locked' });
    expect(forbidden.status).toBe(403);
    expect((await refused(forbidden)).code).toBe('CRM_ACCOUNT_LOCKED');
    const conflict = await post('{}', { 'x-crm-event': 'contact.stale' });
    expect(conflict.status).toBe(400);
    expect((await refused(conflict)).code).toBe('CRM_STALE');
    const undeclared = await post('{}', { 'x-crm-event': 'contact.deleted' });
    expect(undeclared.status).toBe(400);
    expect((await refused(undeclared)).code).toBe('INTEGRATION_EVENT_INVALID');
    const crash = await post('{}', { 'x-crm-event': 'crash' });
    expect(crash.status).toBe(503);
    expect((await refused(crash)).code).toBe('INTEGRATION_PROVIDER_UNAVAILABLE');
    const tooLarge = await post('x'.repeat(256 * 1024 + 1), { 'x-crm-event': 'big' });
    expect(tooLarge.status).toBe(413);
    const forgedUrl = `${url.slice(0, -1)}${url.endsWith('A') ? 'B' : 'A'}`;
    const forged = await post('{}', { 'x-crm-event': 'x' }, forgedUrl);
    expect(forged.status).toBe(404);
    expect(
      (await ws.app('crm')!.broker.db.query('SELECT 1 FROM webhook_deliveries')).rows,
    ).toHaveLength(3);
  });

  it('deliver an event injected into a development session to the subscribed slot', async () => {
    const inject = (body: Record<string, unknown>) =>
      owner('/v1/apps/sales/dev/integration-events', {
        method: 'POST',
        body: JSON.stringify(body),
      });
    const event = { sessionId: 'default', integrationName: 'crm', type: 'contact.updated' };
    const { delivery } = await ok<{ delivery: { state: string; eventId: string } }>(
      await inject(event),
    );
    expect(delivery.state).toBe('delivered');
    // The declared fake is the default data; each injection is a new event.
    const second = await ok<{ delivery: { id: string; eventId: string } }>(await inject(event));
    expect(second.delivery.eventId).not.toBe(delivery.eventId);
    const { rows } = await ws
      .app('sales')!
      .broker.db.query<{ id: string }>('SELECT id, type, email FROM crm_events');
    expect(rows).toHaveLength(2);
    expect(rows).toEqual(
      expect.arrayContaining([
        { id: delivery.eventId, type: 'contact.updated', email: 'ada@example.com' },
        { id: second.delivery.eventId, type: 'contact.updated', email: 'ada@example.com' },
      ]),
    );
    const failed = await ok<{
      delivery: { id: string; state: string; lastError: string; eventId: string };
    }>(await inject({ ...event, data: { email: 'crash@example.com' } }));
    expect(failed.delivery.state).toBe('failed');
    expect(failed.delivery.lastError).toContain('FUNCTION_FAILED');
    failedDelivery = failed.delivery;
    // A delivered one keeps no payload and cannot be replayed.
    const replayDelivered = await refused(
      await owner(`/v1/apps/sales/integration-events/${second.delivery.id}/replay`, {
        method: 'POST',
      }),
    );
    expect(replayDelivered.code).toBe('INVALID_REQUEST');
    expect(replayDelivered.message).toMatch(/was delivered/);
    const undeclared = await refused(await inject({ ...event, type: 'contact.deleted' }));
    expect(undeclared.code).toBe('INTEGRATION_EVENT_INVALID');
    // The spec's parameters: the slot is named by integrationName, in the one session there is.
    const otherSession = await refused(await inject({ ...event, sessionId: 'laptop-2' }));
    expect(otherSession.code).toBe('INVALID_REQUEST');
    expect(otherSession.details).toMatchObject({ field: 'sessionId' });
    const bySlot = await refused(await inject({ slot: 'crm', type: 'contact.updated' }));
    expect(bySlot.details).toMatchObject({ field: 'integrationName' });
    const noSlot = await refused(await inject({ ...event, integrationName: 'billing' }));
    expect(noSlot.code).toBe('INTEGRATION_SLOT_NOT_DECLARED');
    const { deliveries } = await ok<{ deliveries: { eventId: string; state: string }[] }>(
      await owner('/v1/apps/sales/integration-events'),
    );
    expect(deliveries.map((d) => [d.eventId, d.state])).toEqual([
      [failed.delivery.eventId, 'failed'],
      [second.delivery.eventId, 'delivered'],
      [delivery.eventId, 'delivered'],
    ]);
  });

  it('keep credentials sealed at rest with a key outside the database', async () => {
    const keyFile = join(root.path, '.platform', 'credentials.key');
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const { rows } = await ws.apps[0]!.broker.central.query<{ credentials: string }>(
      'SELECT credentials FROM platform.connections',
    );
    for (const row of rows) {
      expect(row.credentials).not.toContain(KEY);
      expect(Buffer.from(row.credentials, 'base64').toString('latin1')).not.toContain(KEY);
    }
  });

  it('let only organisation administrators create organisation connections', async () => {
    const error = await refused(
      await owner('/v1/apps/crm/connections/links', {
        method: 'POST',
        body: JSON.stringify({ kind: 'organisation', actingAs: 'bob@example.com' }),
      }),
    );
    expect(error.code).toBe('PERMISSION_DENIED');
    expect(error.details).toMatchObject({ rule: 'organisation-connection-administrator' });
  });

  it('bind organisation connections only into apps the person administers', async () => {
    const [connection] = await connections();
    const bind = (actingAs: string) =>
      owner('/v1/apps/sales/bindings/crm', {
        method: 'PUT',
        body: JSON.stringify({ connectionId: connection!.id, actingAs }),
      });
    const cy = await refused(await bind('cy@example.com'));
    expect(cy.code).toBe('PERMISSION_DENIED');
    expect(cy.details).toMatchObject({ rule: 'consumer-administer' });
    // bob owns sales (so administers it) and may use crm: his binding replaces ada's.
    const { binding } = await ok<{ binding: { createdBy: string; capabilities: string[] } }>(
      await bind('bob@example.com'),
    );
    expect(binding).toMatchObject({
      createdBy: (await ids_()).bob,
      capabilities: ['contacts.read'],
    });
    expect(await lookup().then((r) => r.status)).toBe(200);
  });

  it('suspend a binding while its creator may not use the provider, and resume it after', async () => {
    const ids = await ids_();
    await ws.authority.setAudience('crm', 'use', { kind: 'accounts', accountIds: [ids.ada] });
    const error = await refused(await lookup());
    expect(error.code).toBe('INTEGRATION_BINDING_REQUIRED');
    expect(error.details).toMatchObject({ reason: 'suspended' });
    // Nor may bob bind or connect anew while he may not use crm.
    const [connection] = await connections();
    const bind = await refused(
      await owner('/v1/apps/sales/bindings/crm', {
        method: 'PUT',
        body: JSON.stringify({ connectionId: connection!.id, actingAs: 'bob@example.com' }),
      }),
    );
    expect(bind.details).toMatchObject({ rule: 'provider-use' });
    const connect = await refused(
      await owner('/v1/apps/crm/connections/links', {
        method: 'POST',
        body: JSON.stringify({ kind: 'personal', actingAs: 'bob@example.com' }),
      }),
    );
    expect(connect.details).toMatchObject({ rule: 'provider-use' });
    await ws.authority.setAudience('crm', 'use', { kind: 'organisation' });
    expect(await lookup().then((r) => r.status)).toBe(200);
  });

  it('bind a personal connection only by its owner, and revoke it for good when the owner loses Edit', async () => {
    const ids = await ids_();
    const url = await connectLink({ kind: 'personal', actingAs: 'cy@example.com' });
    expect((await submit(url, { CRM_API_KEY: KEY })).status).toBe(200);
    const personal = (await connections()).find((c) => c.kind === 'personal')!;
    const bind = (actingAs: string) =>
      owner('/v1/apps/sales/bindings/crm', {
        method: 'PUT',
        body: JSON.stringify({ connectionId: personal.id, actingAs }),
      });
    const byBob = await refused(await bind('bob@example.com'));
    expect(byBob.details).toMatchObject({ rule: 'personal-owner' });
    // Nor does anyone else test crm with cy's credentials, not even crm's owner.
    const testedByAda = await refused(
      await owner('/v1/apps/crm/dev/integrations', {
        method: 'PUT',
        body: JSON.stringify({ testConnection: personal.id, actingAs: 'ada@example.com' }),
      }),
    );
    expect(testedByAda.details).toMatchObject({ rule: 'personal-owner' });
    const notAdmin = await refused(await bind('cy@example.com'));
    expect(notAdmin.details).toMatchObject({ rule: 'consumer-administer' });
    await ws.authority.setAudience('sales', 'administer', {
      kind: 'accounts',
      accountIds: [ids.cy],
    });
    // Administering sales is not enough: the call-time rule (the owner may Edit the consumer)
    // is applied at bind time too, so the binding is refused with its reason instead of being
    // accepted and revoked at the first call.
    const cannotEdit = await refused(await bind('cy@example.com'));
    expect(cannotEdit.code).toBe('PERMISSION_DENIED');
    expect(cannotEdit.details).toMatchObject({ rule: 'personal-owner-edit' });
    expect(cannotEdit.message).toContain('must be able to Edit sales');
    await ws.authority.setEditors('sales', [ids.cy]);
    await ok(await bind('cy@example.com'));
    expect(await lookup().then((r) => r.status)).toBe(200);

    await ws.authority.setEditors('sales', []);
    const revoked = await refused(await lookup());
    expect(revoked.code).toBe('INTEGRATION_BINDING_REQUIRED');
    expect(revoked.details).toMatchObject({ reason: 'revoked' });
    // Regaining Edit does not bring the delegation back: bind again.
    await ws.authority.setEditors('sales', [ids.cy]);
    const still = await refused(await lookup());
    expect(still.details).toMatchObject({ reason: 'unbound' });
    await ok(await bind('cy@example.com'));
    expect(await lookup().then((r) => r.status)).toBe(200);
  });

  it('mark a connection Reconnect required when the provider rejects its credentials', async () => {
    const url = await connectLink({
      kind: 'organisation',
      actingAs: 'ada@example.com',
      bind: { appId: 'sales', slot: 'crm' },
    });
    expect((await submit(url, { CRM_API_KEY: BAD_KEY })).status).toBe(200);
    const rejected = await refused(await lookup());
    expect(rejected.code).toBe('INTEGRATION_RECONNECT_REQUIRED');
    const failing = (await connections()).find((c) => c.condition === 'reconnect_required')!;
    expect(failing).toBeDefined();
    expect((await refused(await lookup())).code).toBe('INTEGRATION_RECONNECT_REQUIRED');
    // Only an organisation administrator replaces an organisation connection's credentials.
    const byBob = await refused(
      await owner('/v1/apps/crm/connections/links', {
        method: 'POST',
        body: JSON.stringify({ actingAs: 'bob@example.com', connectionId: failing.id }),
      }),
    );
    expect(byBob.details).toMatchObject({ rule: 'organisation-connection-administrator' });
    const replace = await connectLink({ actingAs: 'ada@example.com', connectionId: failing.id });
    expect((await submit(replace, { CRM_API_KEY: KEY })).status).toBe(200);
    expect((await connections()).find((c) => c.id === failing.id)?.condition).toBe('active');
    expect(await lookup().then((r) => r.status)).toBe(200);
  });

  it('remove a connection with its bindings', async () => {
    const { bindings } = await ok<{ bindings: { connectionId: string }[] }>(
      await owner('/v1/apps/sales/bindings'),
    );
    const [bound] = bindings;
    const byCy = await refused(
      await owner(`/v1/apps/crm/connections/${bound!.connectionId}?actingAs=cy@example.com`, {
        method: 'DELETE',
      }),
    );
    expect(byCy.code).toBe('PERMISSION_DENIED');
    const removed = await owner(
      `/v1/apps/crm/connections/${bound!.connectionId}?actingAs=ada@example.com`,
      { method: 'DELETE' },
    );
    expect(removed.status).toBe(204);
    expect(await ok(await owner('/v1/apps/sales/bindings'))).toEqual({ bindings: [] });
    expect((await refused(await lookup())).code).toBe('INTEGRATION_BINDING_REQUIRED');
    await ok(await setMode('fake'));
    expect(await lookup().then((r) => r.status)).toBe(200);
  });

  it('manage the same from the command line: platform integrations', async () => {
    const cli = async (appName: string, ...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(['integrations', ...args, '--app', join(root.path, appName)], {
        stdout: (line) => out.push(line),
        stderr: (line) => err.push(line),
        cwd: root.path,
      });
      seen.push(...out, ...err);
      return { code, out: out.join('\n'), err: err.join('\n') };
    };
    const connect = await cli(
      'crm',
      'connect',
      '--as',
      'ada@example.com',
      '--organisation',
      '--bind',
      'sales:crm',
    );
    expect(connect.code).toBe(0);
    const url = connect.out.split('\n')[1]!;
    expect((await submit(url, { CRM_API_KEY: KEY })).status).toBe(200);
    const listed = await cli('crm', 'connections');
    const newest = listed.out.split('\n').at(-1)!.split(' ')[0]!;
    const webhook = await cli('crm', 'webhook-url', newest, '--as', 'ada@example.com');
    expect(webhook.out).toMatch(new RegExp(`/v1/custom-integrations/webhooks/${newest}/\\S+$`));
    expect(listed.out).toMatch(/con_\S+ {2}organisation {2}active/);
    expect((await cli('sales', 'bindings')).out).toMatch(/^crm {2}con_\S+ {2}contacts\.read$/);
    expect((await cli('sales', 'live', 'crm')).code).toBe(0);
    expect(await lookup().then((r) => r.status)).toBe(200);
    expect((await cli('sales', 'calls')).out).toMatch(/crm {2}contacts\.findByEmail {2}live {2}ok/);
    expect((await cli('sales', 'fake', 'crm')).code).toBe(0);
    expect((await cli('sales', 'unbind', 'crm')).err).toContain('--as');
    await ws.authority.setAudience('sales', 'administer', { kind: 'accounts', accountIds: [] });
    expect((await cli('sales', 'unbind', 'crm', '--as', 'cy@example.com')).err).toContain(
      'PERMISSION_DENIED',
    );
    expect((await cli('sales', 'unbind', 'crm', '--as', 'ada@example.com')).code).toBe(0);
    expect((await cli('sales', 'bindings')).out).toBe('No slot is bound.');
    expect((await cli('sales', 'inject', 'crm', 'contact.updated', '--id', 'x')).code).not.toBe(0);
    const injected = await cli('sales', 'inject', 'crm', 'contact.updated');
    const eventId = /^Delivered contact\.updated (\S+) to crm\.$/.exec(injected.out)?.[1];
    expect(eventId).toBeDefined();
    expect((await cli('sales', 'events')).out).toContain(
      `crm  contact.updated  ${eventId}  delivered  1`,
    );
    // A failed delivery is listed with its id, and replaying it runs the handler again.
    await cli(
      'sales',
      'inject',
      'crm',
      'contact.updated',
      '--data',
      '{"email":"crash@example.com"}',
    );
    const failedLine = (await cli('sales', 'events')).out.split('\n')[0]!;
    const deliveryId =
      /^\S+ {2}(dlv_\S+) {2}crm {2}contact\.updated {2}\S+ {2}failed {2}1 {2}/.exec(
        failedLine,
      )?.[1];
    expect(deliveryId, failedLine).toBeDefined();
    const replayed = await cli('sales', 'replay', deliveryId!);
    expect(replayed.out).toMatch(/^The crm handler failed again: FUNCTION_FAILED/);
    expect((await cli('sales', 'events')).out.split('\n')[0]).toMatch(/ {2}failed {2}2 /);
    expect((await cli('sales', 'replay', 'dlv_none')).err).toContain(
      'INTEGRATION_EVENT_DELIVERY_NOT_FOUND',
    );
    expect((await cli('crm', 'test-connection', newest)).err).toContain('--as');
    const tested = await cli('crm', 'test-connection', newest, '--as', 'ada@example.com');
    expect(tested.code).toBe(0);
  });

  it('audit every call without inputs, outputs or credentials, and show no credential anywhere', async () => {
    const { calls } = await ok<{ calls: { mode: string; result: string; operation: string }[] }>(
      await owner('/v1/apps/sales/integration-calls'),
    );
    expect(calls.some((c) => c.mode === 'fake' && c.result === 'ok')).toBe(true);
    expect(calls.some((c) => c.mode === 'live' && c.result === 'ok')).toBe(true);
    expect(calls.some((c) => c.result === 'INTEGRATION_RECONNECT_REQUIRED')).toBe(true);
    expect(JSON.stringify(calls)).not.toContain('grace@example.com');
    for (const text of [...seen, ...lines]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(BAD_KEY);
    }
    // The connect page works in a real Chromium, and the dashboard lists the calls.
    const browser = await launchChromium();
    try {
      const connectUrl = await connectLink({ kind: 'personal', actingAs: 'cy@example.com' });
      const form = await openPage(browser);
      await form.goto(connectUrl);
      expect(await form.locator('#f_CRM_API_KEY').getAttribute('type')).toBe('password');
      await form.fill('#f_CRM_API_KEY', KEY);
      await form.click('button[type="submit"]');
      await form.waitForSelector('text=is connected');
      expect(await form.content()).not.toContain(KEY);

      const page = await openPage(browser, { bypassCSP: true });
      // The link's redirect keeps the fragment, which opens the Integrations section.
      await page.goto(`${ws.app('sales')!.dashboardUrl}#integrations`);
      await page.waitForSelector('body[data-ready="true"]');
      expect(await page.locator('#integrations-section').isVisible()).toBe(true);
      const text = await page.locator('#integration-calls').textContent();
      expect(text).toContain('contacts.findByEmail');
      expect(text).toContain('live');
      expect(text).toContain('INTEGRATION_RECONNECT_REQUIRED');
      const events = await page.locator('#integration-events').textContent();
      expect(events).toMatch(/crmcontact\.updatedevt_\S+delivered/);
      expect(events).toContain('failed');
      // The failed delivery is replayed from the console after a confirmation: its handler runs
      // again with the kept payload, and (the event now stored, as a fixed handler would have)
      // answers, so the delivery is delivered. Declining the confirmation sends nothing: two
      // attempts in all.
      const failedOne = failedDelivery;
      if (!failedOne) throw new Error('no failed delivery');
      await ws
        .app('sales')!
        .broker.db.query('INSERT INTO crm_events (id, type, email) VALUES ($1, $2, $3)', [
          failedOne.eventId,
          'contact.updated',
          null,
        ]);
      const replay = page.locator(`button[aria-label="Replay: ${failedOne.eventId}"]`);
      page.once('dialog', (dialog) => dialog.dismiss());
      await replay.click();
      page.once('dialog', (dialog) => dialog.accept());
      await replay.click();
      await page
        .locator('#integration-events tr', { hasText: failedOne.eventId })
        .locator('td', { hasText: /^delivered$/ })
        .waitFor();
      const { deliveries: after } = await ok<{
        deliveries: { id: string; state: string; attempts: number; replayable: boolean }[];
      }>(await owner('/v1/apps/sales/integration-events'));
      expect(after.find((d) => d.id === failedOne.id)).toMatchObject({
        state: 'delivered',
        attempts: 2,
        replayable: false,
      });

      // The slot is switched live from the console after a confirmation, and back to fake.
      const modeOf = async () =>
        (await ok<{ liveSlot: string | null }>(await owner('/v1/apps/sales/dev/integrations')))
          .liveSlot;
      expect(await modeOf()).toBeNull();
      page.once('dialog', (dialog) => dialog.dismiss());
      await page.click('button[aria-label="Switch live: crm"]');
      expect(await modeOf()).toBeNull();
      page.once('dialog', (dialog) => dialog.accept());
      await page.click('button[aria-label="Switch live: crm"]');
      await page
        .locator('#integration-slots tr', { hasText: 'crm' })
        .locator('td:text-is("live")')
        .waitFor();
      expect(await modeOf()).toBe('crm');
      page.once('dialog', (dialog) => dialog.accept());
      await page.click('button[aria-label="Switch fake: crm"]');
      await page
        .locator('#integration-slots tr', { hasText: 'crm' })
        .locator('td:text-is("fake")')
        .waitFor();
      expect(await modeOf()).toBeNull();

      // The chart draws the audit's calls of the hour, one bar part for each minute's ok and
      // failed count; the section passes axe-core with its rows and buttons shown.
      const { perMinute } = await ok<{ perMinute: { ok: number[]; failed: number[] } }>(
        await owner('/v1/apps/sales/integration-calls/per-minute'),
      );
      const { calls: listed } = await ok<{ calls: { result: string }[] }>(
        await owner('/v1/apps/sales/integration-calls'),
      );
      expect(listed.length).toBeLessThan(100);
      const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
      expect(sum(perMinute.ok)).toBe(listed.filter((c) => c.result === 'ok').length);
      expect(sum(perMinute.failed)).toBe(listed.filter((c) => c.result !== 'ok').length);
      await page.reload();
      await page.waitForSelector('body[data-ready="true"]');
      const drawn = await page.evaluate(() => {
        const svg = document.querySelector('#integration-chart svg');
        return {
          label: svg?.getAttribute('aria-label'),
          bars: svg?.querySelectorAll('rect').length,
        };
      });
      expect(drawn.label).toMatch(
        new RegExp(`^${listed.length} integration calls in the last hour, per minute: `),
      );
      expect(drawn.bars).toBe([...perMinute.ok, ...perMinute.failed].filter((n) => n > 0).length);
      await expectAccessiblePanel(page, 'integrations');
      expect(await page.content()).not.toContain(KEY);
    } finally {
      await browser.close();
    }
    const central = ws.apps[0]!.broker.central;
    for (const table of ['integration_calls', 'bindings', 'connect_links']) {
      const { rows } = await central.query(`SELECT * FROM platform.${table}`);
      expect(JSON.stringify(rows)).not.toContain(KEY);
    }
  });
});
