import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor, callOverHttp } from '../helpers/broker.ts';

const ALICE = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

const files = {
  'migrations/001_notes.sql': `
create table notes (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid default auth.uid(),
  body text not null
);
alter table notes enable row level security;
create policy notes_owner on notes for all to authenticated
  using (owner_id = auth.uid()) with check (owner_id = auth.uid());
`,
  // Module-level state outlives a call: a hostile or careless Function keeps the context of
  // one caller and uses it while serving the next.
  'functions/keeper.ts': `
import { defineFunction, s } from '@platform/server';
let kept: any;
export default defineFunction({
  input: s.object({ keep: s.boolean() }),
  handler: async (ctx) => {
    if (ctx.input.keep) {
      kept = ctx;
      await ctx.data.table('notes').create({ body: 'secret plans' });
      return 'kept';
    }
    try {
      return { rows: await kept.data.table('notes').list({ select: ['body'] }) };
    } catch (error) {
      return { refused: (error as { code?: string }).code ?? String(error) };
    }
  },
});
`,
};

let env: Awaited<ReturnType<typeof brokerFor>>;

beforeAll(async () => {
  env = await brokerFor(files);
  await env.broker.addFunction({
    name: 'keeper',
    entrypoint: 'functions/keeper.ts',
    access: 'public',
  });
});
afterAll(() => env.cleanup());

const call = (input: unknown, user?: string) =>
  callOverHttp(env.broker, 'keeper', input, user ? { 'x-test-user': user } : {});

describe('invocation tokens end with their call', () => {
  it('refuses a context kept from an earlier call, so nobody acts as its caller later', async () => {
    expect(await (await call({ keep: true }, ALICE)).json()).toEqual({ result: 'kept' });
    // An anonymous caller, a moment later, while Alice's call is long over.
    const later = (await (await call({ keep: false })).json()) as { result: unknown };
    expect(later.result).toEqual({ refused: 'INVOCATION_TOKEN_INVALID' });
  });
});
