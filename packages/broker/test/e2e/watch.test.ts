// Watch mode: a changed Function is re-bundled and swapped, a new migration is applied, a changed
// platform.yaml is reloaded, and a broken edit keeps the previous version serving.
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { userCaller } from '../../src/kernel/caller.ts';
import { writeFiles } from '../helpers/broker.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { eventually, fixtureApp } from './fixture-app.ts';
import { devFor } from './helpers.ts';

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;
let lines: string[];

beforeAll(async () => {
  app = await tempDir('watch-');
  await writeFiles(app.path, fixtureApp);
  ({ dev, lines } = await devFor(app.path));
});

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

const echo = async () => {
  const response = await fetch(`${dev.url}/_platform/api/functions/echo`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"text":"hi"}',
  });
  return (await response.json()) as { result?: Record<string, unknown> };
};

describe('watch mode', () => {
  it('re-bundles a changed Function and swaps it without a restart', async () => {
    const url = dev.url;
    await writeFile(
      join(app.path, 'functions/echo/index.ts'),
      fixtureApp['functions/echo/index.ts']!.replace(
        'echo: input.text',
        'shout: input.text?.toUpperCase()',
      ),
    );
    await eventually(async () => expect((await echo()).result).toMatchObject({ shout: 'HI' }));
    expect(dev.url).toBe(url);
  });

  it('keeps serving the previous version after a broken edit', async () => {
    await writeFile(join(app.path, 'functions/echo/index.ts'), 'export default defineFunction({');
    await dev.settled();
    await eventually(async () =>
      expect(lines.join('\n')).toContain('Still running the previous version of echo'),
    );
    expect((await echo()).result).toMatchObject({ shout: 'HI' });
  });

  it('applies a new migration', async () => {
    await writeFile(
      join(app.path, 'migrations/002_tags.sql'),
      'create table tags (id integer primary key, name text not null);\ninsert into tags values (1, $$a$$);',
    );
    await eventually(async () => {
      const response = await fetch(`${dev.url}/rest/v1/tags`);
      expect(await response.json()).toEqual([{ id: 1, name: 'a' }]);
    });
  });

  it('reloads a changed platform.yaml on the same port', async () => {
    await writeFile(
      join(app.path, 'functions/echo/index.ts'),
      fixtureApp['functions/echo/index.ts']!,
    );
    await writeFile(
      join(app.path, 'platform.yaml'),
      fixtureApp['platform.yaml']!.replace('path: /echo/:word', 'path: /say/:word'),
    );
    await eventually(async () => {
      const response = await fetch(`${dev.url}/say/hello`);
      expect(await response.json()).toEqual({ result: { echo: null, word: 'hello' } });
    });
    expect((await fetch(`${dev.url}/echo/hello`)).status).toBe(404);
  });

  it('keeps the running version when platform.yaml gets an error', async () => {
    await writeFile(join(app.path, 'platform.yaml'), 'schemaVersion: 3\nfunctions: 7\n');
    await dev.settled();
    await eventually(async () =>
      expect(lines.join('\n')).toContain('still serving the previous version'),
    );
    expect((await fetch(`${dev.url}/say/again`)).status).toBe(200);
  });
});

describe('watch mode with data.search', () => {
  // `notes` is searched with a filter on `tag`. A migration recreates the table with `tag` an
  // integer: the search must forget the old column type and index the new table.
  const files = {
    ...fixtureApp,
    'platform.yaml': `${fixtureApp['platform.yaml']}data:
  search:
    - name: notes
      table: notes
      select: [id, body]
      fullText: { columns: [body], language: simple }
      filters: [tag]
`,
    'migrations/001_notes.sql': fixtureApp['migrations/001_notes.sql']!.replace(
      'body text not null check (length(body) <= 10)',
      'body text not null check (length(body) <= 10),\n  tag text',
    ),
  };
  const owner = '00000000-0000-4000-8000-00000000000a';
  let searchApp: { path: string; remove: () => Promise<void> };
  let searchDev: DevServer;
  let searchLines: string[];

  beforeAll(async () => {
    searchApp = await tempDir('watch-search-');
    await writeFiles(searchApp.path, files);
    ({ dev: searchDev, lines: searchLines } = await devFor(searchApp.path));
  });

  afterAll(async () => {
    await searchDev?.close();
    await searchApp?.remove();
  });

  const run = (where: Record<string, unknown>) =>
    searchDev.broker.search!.search(userCaller(owner), 'notes', {
      mode: 'fullText',
      query: 'milk',
      where,
    });
  // The GIN index of the search's documents, and the trigger that keeps them, on the table.
  const searchIndexes = async () =>
    (
      await searchDev.broker.db.query<{ name: string }>(
        `select indexname as name from pg_indexes
          where schemaname = 'platform_search' and indexname like 'notes\\_%\\_gin'
            and exists (select 1 from pg_trigger where tgrelid = 'public.notes'::regclass
                          and tgname like 'ps\\_notes\\_%' and not tgname like '%truncate')`,
      )
    ).rows.map((row) => row.name);

  it('prepares the searches again after a migration: new column types, documents in step', async () => {
    await searchDev.broker.db.query(
      `insert into notes (owner_id, body, tag) values ($1, 'milk', 'a')`,
      [owner],
    );
    expect((await run({ tag: 'a' })).hits).toHaveLength(1);
    await expect(run({ tag: 1 })).rejects.toMatchObject({
      code: 'SEARCH_INPUT_INVALID',
      details: { column: 'tag', expected: 'string' },
    });
    expect(await searchIndexes()).toHaveLength(1);

    await writeFile(
      join(searchApp.path, 'migrations/002_retag.sql'),
      `drop table notes;
create table notes (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null default auth.uid(),
  body text not null,
  tag integer
);
alter table notes enable row level security;
create policy notes_owner on notes for all to authenticated
  using (owner_id = (select auth.uid())) with check (owner_id = (select auth.uid()));
insert into notes (owner_id, body, tag) values ('${owner}', 'milk', 1);
`,
    );
    await eventually(async () =>
      expect(searchLines.join('\n')).toContain('Applied migrations: 002_retag.sql'),
    );
    await searchDev.settled();
    // Without the refresh the old kinds would still say `tag` is text, and the recreated table
    // would have no trigger keeping its documents (nor the row the migration inserted).
    expect((await run({ tag: 1 })).hits).toHaveLength(1);
    await expect(run({ tag: 'a' })).rejects.toMatchObject({
      code: 'SEARCH_INPUT_INVALID',
      details: { column: 'tag', expected: 'integer' },
    });
    expect(await searchIndexes()).toHaveLength(1);
  });
});

describe('watch mode after rename-style saves', () => {
  // Editors that save atomically and `sed -i` write a temporary file and rename it over the
  // original; every later save must still be seen.
  let renameApp: { path: string; remove: () => Promise<void> };
  let renameDev: DevServer;

  beforeAll(async () => {
    renameApp = await tempDir('watch-rename-');
    await writeFiles(renameApp.path, fixtureApp);
    ({ dev: renameDev } = await devFor(renameApp.path));
  });

  afterAll(async () => {
    await renameDev?.close();
    await renameApp?.remove();
  });

  const saveByRename = async (file: string, text: string) => {
    const target = join(renameApp.path, file);
    const temp = `${target}.tmp-${Math.random().toString(36).slice(2)}`;
    await writeFile(temp, text);
    await rename(temp, target);
  };
  const echoAt = async (path: string) => {
    const response = await fetch(`${renameDev.url}${path}`);
    return { status: response.status, body: (await response.json()) as unknown };
  };

  it('sees every rename-style save of a Function and of platform.yaml', async () => {
    const source = fixtureApp['functions/echo/index.ts']!;
    for (const word of ['first', 'second', 'third']) {
      await saveByRename(
        'functions/echo/index.ts',
        source.replace('echo: input.text ?? null', `echo: '${word}'`),
      );
      await eventually(async () =>
        expect((await echoAt('/echo/x')).body).toEqual({ result: { echo: word, word: 'x' } }),
      );
    }
    for (const path of ['/one', '/two']) {
      await saveByRename(
        'platform.yaml',
        fixtureApp['platform.yaml']!.replace('path: /echo/:word', `path: ${path}/:word`),
      );
      await eventually(async () => expect((await echoAt(`${path}/x`)).status).toBe(200));
    }
  });
});
