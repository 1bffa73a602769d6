// `platform backups restore <id> --to <new app>` under platform dev on PostgreSQL: the new app
// gets the database `platform_app_<id>` on the live app's server, filled by pg_restore, and
// serves the backup's rows while the live one keeps its own; the next start drops it.

import { fillPath } from '@platform/schema/routes';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { ownerApiPaths } from '../../src/http/paths.ts';
import { copyExample, devFor } from '../e2e/helpers.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { call } from '../serve/serve-harness.ts';

let server: PostgresServer;
let app: Awaited<ReturnType<typeof copyExample>>;
let dev: DevServer;
let url: string;

beforeAll(async () => {
  [server, app] = await Promise.all([startPostgres(), copyExample('todo')]);
  url = await server.createDatabase('todo_live');
  ({ dev } = await devFor(app.path, { watch: false, databaseUrl: url }, 'sign-in'));
}, 180_000);

afterAll(async () => {
  await dev?.close();
  await app?.remove();
  await server?.stop();
});

const databases = async (): Promise<string[]> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'platform_app_todo%' ORDER BY 1",
    );
    return rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
};

describe('restoring a backup into a new app under platform dev on PostgreSQL', () => {
  it('restores into a database of its own on the same server, dropped by the next start', async () => {
    const path = (suffix = '') =>
      `${fillPath(ownerApiPaths.backups, { appId: dev.appId })}${suffix}`;
    const post = (to: string, body: unknown) =>
      dev.fetch(
        new Request(`${dev.url}${to}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${dev.devToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    await dev.broker.db.query("INSERT INTO public.tips (id, text) VALUES (10, 'backed up')");
    const taken = await post(path(), {});
    const { backup } = (await taken.json()) as { backup: { id: string } };
    await dev.broker.db.query("UPDATE public.tips SET text = 'changed' WHERE id = 10");

    const restored = await post(path(`/${backup.id}/restore`), { to: 'todo-pg-copy' });
    expect(restored.status).toBe(201);
    const made = ((await restored.json()) as { app: { url: string } }).app;
    const { port } = new URL(made.url);
    const tips = await call(
      Number(port),
      `todo-pg-copy.localhost:${port}`,
      '/rest/v1/tips?order=id',
    );
    expect(tips.status).toBe(200);
    const rows = JSON.parse(tips.body) as { id: number; text: string }[];
    expect(rows.find((row) => row.id === 10)?.text).toBe('backed up');
    expect(await databases()).toEqual(['platform_app_todo_pg_copy']);
    const live = await dev.broker.db.query<{ text: string }>(
      'SELECT text FROM public.tips WHERE id = 10',
    );
    expect(live.rows).toEqual([{ text: 'changed' }]);

    await dev.close();
    ({ dev } = await devFor(app.path, { watch: false, databaseUrl: url }, 'sign-in'));
    expect(await databases()).toEqual([]);
  }, 180_000);
});
