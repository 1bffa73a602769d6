import { jsonByteLength, limits } from '../../limits.ts';
import type { RuleContext } from '../context.ts';
import type { PathSegment } from '../diagnostic.ts';
import { didYouMean } from '../suggest.ts';
import { checkSchedule, checkTimeZone } from './cron.ts';
import { firstDuplicates } from './duplicates.ts';
import { checkReservedName } from './names.ts';

/** Spec 2.9 and 2.10: the integration contract this app publishes. */
export function checkIntegrationContract(ctx: RuleContext): void {
  const contract = ctx.manifest.provides?.integration;
  if (contract === undefined) return;
  const at = ['provides', 'integration'] as const;
  const secrets = new Set(ctx.manifest.secrets);
  const system = (path: readonly PathSegment[], name: string, role: string) =>
    ctx.requireSystemFunction(path, name, 'INTEGRATION_FUNCTION_NOT_SYSTEM', role);

  for (const [i, first] of firstDuplicates(contract.credentials, (c) => c.name)) {
    ctx.report(
      'INTEGRATION_CREDENTIAL_DUPLICATE',
      [...at, 'credentials', i, 'name'],
      `Credential "${contract.credentials[i]!.name}" is already declared by credentials[${first}].`,
    );
  }
  contract.credentials.forEach((credential, i) => {
    const path = [...at, 'credentials', i, 'name'];
    checkReservedName(ctx, path, credential.name);
    if (secrets.has(credential.name)) {
      ctx.report(
        'INTEGRATION_CREDENTIAL_SHADOWS_SECRET',
        path,
        `Credential "${credential.name}" has the name of a secret of this app; rename the credential (connection values and app secrets must not collide).`,
      );
    }
  });

  const capabilities = new Set(contract.capabilities.map((c) => c.name));
  for (const [i, first] of firstDuplicates(contract.capabilities, (c) => c.name)) {
    ctx.report(
      'INTEGRATION_CAPABILITY_DUPLICATE',
      [...at, 'capabilities', i, 'name'],
      `Capability "${contract.capabilities[i]!.name}" is already declared by capabilities[${first}].`,
    );
  }
  const requireCapability = (path: readonly PathSegment[], name: string, what: string) => {
    if (!capabilities.has(name)) {
      ctx.report(
        'INTEGRATION_CAPABILITY_UNDECLARED',
        path,
        `${what} names capability "${name}", which capabilities[] does not declare.${didYouMean(name, capabilities)}`,
      );
    }
  };

  for (const [i, first] of firstDuplicates(contract.operations, (o) => o.name)) {
    ctx.report(
      'INTEGRATION_OPERATION_DUPLICATE',
      [...at, 'operations', i, 'name'],
      `Operation "${contract.operations[i]!.name}" is already declared by operations[${first}].`,
    );
  }
  contract.operations.forEach((operation, i) => {
    const path = [...at, 'operations', i];
    requireCapability(
      [...path, 'capability'],
      operation.capability,
      `Operation "${operation.name}"`,
    );
    system([...path, 'function'], operation.function, `Function of operation "${operation.name}"`);
    const size = jsonByteLength(operation.fake);
    if (size > limits.integration.fakeOutputMaxBytes) {
      ctx.report(
        'INTEGRATION_FAKE_TOO_LARGE',
        [...path, 'fake'],
        `The fake output of operation "${operation.name}" is ${size} bytes as JSON; at most ${limits.integration.fakeOutputMaxBytes} (16 KiB) are allowed. Shorten it.`,
      );
    }
  });

  if (contract.sync) {
    system([...at, 'sync', 'function'], contract.sync.function, 'Sync Function');
    checkSchedule(ctx, [...at, 'sync', 'schedule'], contract.sync.schedule);
    checkTimeZone(ctx, [...at, 'sync', 'timezone'], contract.sync.timezone);
  }
  if (contract.webhook)
    system([...at, 'webhook', 'function'], contract.webhook.function, 'Webhook Function');

  const events = contract.events ?? [];
  for (const [i, first] of firstDuplicates(events, (e) => e.type)) {
    ctx.report(
      'INTEGRATION_EVENT_DUPLICATE',
      [...at, 'events', i, 'type'],
      `Event type "${events[i]!.type}" is already declared by events[${first}].`,
    );
  }
  events.forEach((event, i) => {
    requireCapability(
      [...at, 'events', i, 'capability'],
      event.capability,
      `Event "${event.type}"`,
    );
    const size = jsonByteLength(event.fake);
    if (size > limits.integration.eventDataMaxBytes) {
      ctx.report(
        'INTEGRATION_EVENT_FAKE_TOO_LARGE',
        [...at, 'events', i, 'fake'],
        `The fake payload of event "${event.type}" is ${size} bytes as JSON; event data is at most ${limits.integration.eventDataMaxBytes} (64 KiB).`,
      );
    }
  });

  const oauth = contract.authorization;
  if (oauth === undefined) return;
  const path = [...at, 'authorization'];
  if (!isHttpsUrl(oauth.authorizationUrl)) {
    ctx.report(
      'INTEGRATION_OAUTH_URL_INVALID',
      [...path, 'authorizationUrl'],
      `authorizationUrl "${oauth.authorizationUrl}" must be an absolute https:// URL (http:// only for localhost).`,
    );
  }
  system([...path, 'exchange'], oauth.exchange, 'OAuth exchange Function');
  if (oauth.refresh !== undefined)
    system([...path, 'refresh'], oauth.refresh, 'OAuth refresh Function');
  checkReservedName(ctx, [...path, 'accessToken'], oauth.accessToken);
  const clash = contract.credentials.some((c) => c.name === oauth.accessToken)
    ? 'a credential'
    : secrets.has(oauth.accessToken)
      ? 'a secret of this app'
      : undefined;
  if (clash !== undefined) {
    ctx.report(
      'INTEGRATION_ACCESS_TOKEN_NAME_CLASH',
      [...path, 'accessToken'],
      `accessToken "${oauth.accessToken}" is also the name of ${clash}; choose a distinct name (default OAUTH_ACCESS_TOKEN).`,
    );
  }
}

function isHttpsUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
}
