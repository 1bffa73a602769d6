import { integrationApiPaths as paths } from '../http/paths.ts';
import type { Binding } from '../integrations/bindings.ts';
import type { Connection } from '../integrations/connections.ts';
import type { IntegrationCallRecord as Call } from '../integrations/integration-audit.ts';
import type { EventDelivery as Delivery } from '../integrations/integration-events.ts';
import { appPath, brokerFetch, callBroker } from './broker-call.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform integrations connections
       platform integrations connect --as <email> [--organisation] [--bind <app>:<slot>]
       platform integrations reconnect <connection id> --as <email>
       platform integrations disconnect <connection id> --as <email>
       platform integrations webhook-url <connection id> --as <email>
       platform integrations bindings
       platform integrations bind <slot> <connection id> --as <email>
       platform integrations unbind <slot> --as <email>
       platform integrations live|fake <slot>
       platform integrations test-connection <connection id> --as <email>
       platform integrations test-connection none
       platform integrations calls
       platform integrations inject <slot> <event type> [--data <json>]
       platform integrations events
       platform integrations replay <delivery id>
       [--app <dir>] [--json]

Connections, bindings and calls of the organisation's integrations (docs/integrations.md).
connections, connect, reconnect, disconnect, webhook-url and test-connection act on the
integration the app (--app) publishes; bindings, bind, unbind, live, fake and calls on the
slots it declares. webhook-url prints the connection's secret webhook URL, for its upstream to
post to. inject delivers a synthetic event with a new id to a slot (the spec's integration
name) now, in the development session of platform dev (its data defaults to the event's
declared fake); events lists the deliveries to the app's slots, and replay delivers a failed
one again with the payload it kept. test-connection chooses, for a
member with Edit access to the app, one of their own connections or an organisation one.
connect and reconnect print a one-time link to the page where that member enters the
credentials: values are never typed on the command line. A change names the member on whose
authority it is made (--as). Talks to the running platform dev.

Options:
  --as <email>        The member acting.
  --organisation      Connect for the organisation (administrators only), not for the member.
  --bind <app>:<slot> Bind the new connection into this slot in the same step.
  --data <json>       The injected event's data, a JSON object.
  --app <dir>         An app folder of the running platform dev (default: the current directory).
  --json              Print the broker's answer as JSON.
  -h, --help          Show this help.`;

/** `platform integrations ...`. */
export const integrationsCommand = defineCommand({
  name: 'integrations',
  summary: 'Connections, bindings, live mode and calls of integrations.',
  usage,
  options: {
    app: { type: 'string', default: '.' },
    as: { type: 'string' },
    organisation: { type: 'boolean', default: false },
    bind: { type: 'string' },
    data: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  maxPositionals: 3,
  async run(parsed, io, usageError) {
    const [action, first, second] = parsed.positionals;
    const { app, as: actingAs, json } = parsed.values;
    const label = 'integrations';
    const print = (answer: unknown, lines: () => string[]) => {
      if (json) io.stdout(JSON.stringify(answer, null, 2));
      else for (const line of lines()) io.stdout(line);
      return exitCodes.ok;
    };
    const needAs = () => usageError('--as <email> names the member acting');
    const query = () => `?actingAs=${encodeURIComponent(actingAs ?? '')}`;

    if (action === 'connections') {
      const answer = await callBroker<{ connections: Connection[] }>(
        io,
        app,
        appPath(paths.connections),
        { label },
      );
      if (typeof answer === 'number') return answer;
      return print(answer, () =>
        answer.connections.length === 0
          ? ['No connections yet (platform integrations connect --as <email>).']
          : answer.connections.map((c) => `${c.id}  ${c.kind}  ${c.condition}`),
      );
    }
    if (action === 'connect' || (action === 'reconnect' && first !== undefined)) {
      if (actingAs === undefined) return needAs();
      let bind: { appId: string; slot: string } | undefined;
      if (parsed.values.bind !== undefined) {
        const [appId, slot] = parsed.values.bind.split(':');
        if (!appId || !slot) return usageError('--bind takes <app>:<slot>');
        bind = { appId, slot };
      }
      const answer = await callBroker<{ url: string; expiresAt: string }>(
        io,
        app,
        appPath(paths.connectLinks),
        {
          method: 'POST',
          json: {
            actingAs,
            kind: parsed.values.organisation ? 'organisation' : 'personal',
            ...(action === 'reconnect' ? { connectionId: first } : {}),
            ...(bind ? { bind } : {}),
          },
          label,
        },
      );
      if (typeof answer === 'number') return answer;
      return print(answer, () => [
        `${actingAs} enters the credentials at (once, until ${answer.expiresAt}):`,
        answer.url,
      ]);
    }
    if (action === 'disconnect' && first !== undefined) {
      if (actingAs === undefined) return needAs();
      const path = appPath(paths.connection, { connectionId: first });
      const response = await brokerFetch(io, app, (id) => `${path(id)}${query()}`, {
        method: 'DELETE',
        label,
      });
      if (typeof response === 'number') return response;
      io.stdout(`Removed ${first} and its bindings.`);
      return exitCodes.ok;
    }
    if (action === 'webhook-url' && first !== undefined) {
      if (actingAs === undefined) return needAs();
      const path = appPath(paths.webhookUrl, { connectionId: first });
      const answer = await callBroker<{ url: string }>(io, app, (id) => `${path(id)}${query()}`, {
        label,
      });
      if (typeof answer === 'number') return answer;
      return print(answer, () => [answer.url]);
    }
    if (action === 'bindings') {
      const answer = await callBroker<{ bindings: Binding[] }>(io, app, appPath(paths.bindings), {
        label,
      });
      if (typeof answer === 'number') return answer;
      return print(answer, () =>
        answer.bindings.length === 0
          ? ['No slot is bound.']
          : answer.bindings.map((b) => `${b.slot}  ${b.connectionId}  ${b.capabilities.join(',')}`),
      );
    }
    if (action === 'bind' && first !== undefined && second !== undefined) {
      if (actingAs === undefined) return needAs();
      const answer = await callBroker<{ binding: Binding }>(
        io,
        app,
        appPath(paths.binding, { slot: first }),
        { method: 'PUT', json: { connectionId: second, actingAs }, label },
      );
      if (typeof answer === 'number') return answer;
      return print(answer, () => [`${first} is bound to ${second}.`]);
    }
    if (action === 'unbind' && first !== undefined) {
      if (actingAs === undefined) return needAs();
      const path = appPath(paths.binding, { slot: first });
      const response = await brokerFetch(io, app, (id) => `${path(id)}${query()}`, {
        method: 'DELETE',
        label,
      });
      if (typeof response === 'number') return response;
      io.stdout(`${first} is no longer bound.`);
      return exitCodes.ok;
    }
    if ((action === 'live' || action === 'fake') && first !== undefined) {
      const answer = await callBroker(io, app, appPath(paths.devModes), {
        method: 'PUT',
        json: { slot: first, mode: action },
        label,
      });
      if (typeof answer === 'number') return answer;
      return print(answer, () => [
        action === 'live'
          ? `${first} calls its provider for real until platform dev stops.`
          : `${first} answers its contract's fakes.`,
      ]);
    }
    if (action === 'test-connection' && first !== undefined) {
      if (first !== 'none' && actingAs === undefined) return needAs();
      const answer = await callBroker(io, app, appPath(paths.devModes), {
        method: 'PUT',
        json: first === 'none' ? { testConnection: null } : { testConnection: first, actingAs },
        label,
      });
      if (typeof answer === 'number') return answer;
      return print(answer, () => [
        first === 'none'
          ? 'No test connection: invoking an integration Function directly is refused.'
          : `platform invoke runs the integration's Functions for ${first}.`,
      ]);
    }
    if (action === 'inject' && first !== undefined && second !== undefined) {
      let data: unknown;
      if (parsed.values.data !== undefined) {
        try {
          data = JSON.parse(parsed.values.data);
        } catch {
          return usageError('--data takes a JSON object');
        }
      }
      const answer = await callBroker<{ delivery: Delivery }>(io, app, appPath(paths.devEvents), {
        method: 'POST',
        json: { integrationName: first, type: second, ...(data === undefined ? {} : { data }) },
        label,
      });
      if (typeof answer === 'number') return answer;
      const { delivery } = answer;
      return print(answer, () => [
        delivery.state === 'delivered'
          ? `Delivered ${delivery.type} ${delivery.eventId} to ${delivery.slot}.`
          : `The ${delivery.slot} handler failed: ${delivery.lastError}`,
      ]);
    }
    if (action === 'replay' && first !== undefined) {
      const answer = await callBroker<{ delivery: Delivery }>(
        io,
        app,
        appPath(paths.eventReplay, { deliveryId: first }),
        { method: 'POST', label },
      );
      if (typeof answer === 'number') return answer;
      const { delivery } = answer;
      return print(answer, () => [
        delivery.state === 'delivered'
          ? `Delivered ${delivery.type} ${delivery.eventId} to ${delivery.slot} again.`
          : delivery.state === 'pending'
            ? `${delivery.type} ${delivery.eventId} is due for ${delivery.slot} again now.`
            : `The ${delivery.slot} handler failed again: ${delivery.lastError}`,
      ]);
    }
    if (action === 'events') {
      const answer = await callBroker<{ deliveries: Delivery[] }>(io, app, appPath(paths.events), {
        label,
      });
      if (typeof answer === 'number') return answer;
      return print(answer, () =>
        answer.deliveries.map(
          (d) =>
            `${d.createdAt}  ${d.id}  ${d.slot}  ${d.type}  ${d.eventId}  ${d.state}  ${d.attempts}${d.lastError ? `  ${d.lastError}` : ''}`,
        ),
      );
    }
    if (action === 'calls') {
      const answer = await callBroker<{ calls: Call[] }>(io, app, appPath(paths.calls), { label });
      if (typeof answer === 'number') return answer;
      return print(answer, () =>
        answer.calls.map(
          (c) => `${c.at}  ${c.slot}  ${c.operation}  ${c.mode}  ${c.result}  ${c.durationMs} ms`,
        ),
      );
    }
    return usageError('see platform integrations --help');
  },
});
