import { PlatformError } from '@platform/errors';
import type { Manifest } from '@platform/schema/manifest';
import type { Hono } from 'hono';
import type { ExerciseWay, FunctionInvoker } from '../functions/invoker.ts';
import { scopeToApp } from '../http/app-scope.ts';
import { readBearer } from '../http/bearer.ts';
import type { BrokerEnv } from '../http/broker-env.ts';
import { ownerApiPaths } from '../http/paths.ts';
import { safeEqual } from '../kernel/crypto.ts';

/** One declared Function in the verification answer. */
export interface FunctionVerification {
  readonly name: string;
  /**
   * The ways that count for it: its roles' (a queue consumer: `job`; the inbound email Function:
   * `inbound`; a cron Function: `cron`; a slot's event handler: `event` or `direct`) or, without
   * a role, `direct` and `browser`.
   */
  readonly accepts: readonly ExerciseWay[];
  /** The ways it succeeded since its code last changed. */
  readonly ran: readonly ExerciseWay[];
  /** Whether it ran through one of the ways that count for it. */
  readonly exercised: boolean;
}

/**
 * The integration contract's Functions (operations, sync, webhook, exchange, refresh):
 * verification never requires invoking them.
 */
export function contractFunctions(manifest: Manifest): Set<string> {
  const provided = manifest.provides?.integration;
  const names = new Set<string>();
  if (!provided) return names;
  for (const operation of provided.operations) names.add(operation.function);
  if (provided.sync) names.add(provided.sync.function);
  if (provided.webhook) names.add(provided.webhook.function);
  if (provided.authorization) {
    names.add(provided.authorization.exchange);
    if (provided.authorization.refresh) names.add(provided.authorization.refresh);
  }
  return names;
}

/**
 * Each declared Function except contract Functions, with whether it was exercised after its
 * code last changed: a queue consumer by a job, the inbound email Function by an inbound
 * delivery, a cron target by a cron run, a slot's event handler by an event delivery or a direct
 * invocation, any other by a direct invocation or a browser action.
 */
export function verificationOf(
  manifest: Manifest,
  invoker: Pick<FunctionInvoker, 'exercised'>,
): FunctionVerification[] {
  const contract = contractFunctions(manifest);
  const roles = new Map<string, Set<ExerciseWay>>();
  const add = (name: string, way: ExerciseWay) => {
    const ways = roles.get(name) ?? new Set<ExerciseWay>();
    roles.set(name, ways.add(way));
  };
  for (const queue of manifest.queues) add(queue.function, 'job');
  for (const cron of manifest.cron) add(cron.function, 'cron');
  if (manifest.email.inbound) add(manifest.email.inbound.function, 'inbound');
  // An event delivery needs a publishing provider; a direct invocation with a sample event
  // exercises the handler as well.
  for (const slot of Object.values(manifest.integrations ?? {})) {
    if (slot.events) {
      add(slot.events.function, 'event');
      add(slot.events.function, 'direct');
    }
  }
  return manifest.functions
    .filter((fn) => !contract.has(fn.name))
    .map((fn) => {
      const accepts = [...(roles.get(fn.name) ?? new Set<ExerciseWay>(['direct', 'browser']))];
      const ran = [...invoker.exercised(fn.name)];
      return { name: fn.name, accepts, ran, exercised: ran.some((way) => accepts.includes(way)) };
    });
}

/**
 * `GET /v1/apps/:appId/verification` with the dev token: `{ functions: FunctionVerification[] }`
 * (docs/broker.md, "Verification"). `platform verify` runs the enabled cron schedules first
 * through the cron API, then reads this.
 */
export function mountVerificationRoutes(
  app: Hono<BrokerEnv>,
  services: {
    appId: string;
    manifest: Manifest;
    invoker: Pick<FunctionInvoker, 'exercised'>;
    devToken: string;
  },
): void {
  scopeToApp(app, services.appId, [ownerApiPaths.verification]);
  app.get(ownerApiPaths.verification, (c) => {
    const presented = readBearer(c.req.header('authorization'));
    if (typeof presented !== 'string' || !safeEqual(presented, services.devToken)) {
      throw new PlatformError({
        code: 'AUTH_REQUIRED',
        message: 'Verification needs the dev token of .platform/dev.json (use platform verify).',
      });
    }
    return c.json({ functions: verificationOf(services.manifest, services.invoker) });
  });
}
