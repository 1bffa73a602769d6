// The worked example of a feature (example/notes-feature.ts) in a registry beside the real
// features: the typechecker checks its place, and it starts, serves and erases as a feature does.

import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveBrokerOptions } from '../../src/app/broker-options.ts';
import { brokerFeatures } from '../../src/app/features.ts';
import { inspectionHoldFeature } from '../../src/backups/inspection-hold.ts';
import type { FeatureBase } from '../../src/feature/broker-feature.ts';
import { defineRegistry, erasuresOf, startFeatures } from '../../src/feature/compose.ts';
import type { BrokerEnv } from '../../src/http/broker-env.ts';
import { anonymousCaller } from '../../src/kernel/caller.ts';
import { outboxFeature } from '../../src/outbox/outbox-feature.ts';
import { appWithDatabase } from '../helpers/db.ts';
import { notesFeature, notesTableStep } from './example/notes-feature.ts';

const ADA = '6f1c2f7e-2d1b-4f63-9b9e-4b0a3c1d2e3f';

describe('a feature added to the registry', () => {
  let app: Awaited<ReturnType<typeof appWithDatabase>>;

  beforeAll(async () => {
    app = await appWithDatabase({}, { inMemory: true });
    await app.db.exec(notesTableStep.sql);
  }, 60_000);
  afterAll(() => app?.cleanup());

  it('takes its place after the features it needs, and no earlier', async () => {
    const options = await resolveBrokerOptions({ appDir: app.appDir, appId: 'a', sdkVersion: '0' });
    const registry = defineRegistry([...brokerFeatures(options, 'http://localhost'), notesFeature]);
    expect(registry.at(-1)).toBe(notesFeature);
    // @ts-expect-error: notes needs the outbox, which no line above it provides.
    defineRegistry([notesFeature, outboxFeature]);
  });

  it('starts with its needs, serves its routes and erases a deleted person', async () => {
    // The shared parts this example reads; a broker builds all of them (app/broker-base.ts).
    const base = {
      db: app.db,
      print: () => undefined,
      onClose: () => undefined,
    } as Partial<FeatureBase> as FeatureBase;
    const started = await startFeatures(
      defineRegistry([inspectionHoldFeature, outboxFeature, notesFeature]),
      base,
    );
    await started.services.notes.add(ADA, 'buy milk');
    const web = new Hono<BrokerEnv>();
    const context = {
      appId: 'a',
      central: app.db,
      admission: false,
      authenticate: async () => anonymousCaller,
    };
    started.mount(web, 'routes', context);
    expect(await (await web.request('/_platform/example/notes')).json()).toEqual({ count: 1 });
    const [erasure] = erasuresOf([notesFeature]);
    await app.db.transaction(async (tx) => {
      await erasure?.appPerson?.(tx, { accountId: ADA, email: 'ada@x', requestedAt: new Date() });
    });
    expect(await started.services.notes.count()).toBe(0);
  });
});
