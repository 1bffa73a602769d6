// A Function's Deno process starts on its first call and stops after a while without one, so an
// app's idle Functions cost no memory and the broker is ready without starting any. What users
// rely on: the first call is answered correctly, a stopped Function answers again, a Function
// that cannot load fails its own calls only, and one that loops delays no other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerFor, callOverHttp } from '../helpers/broker.ts';
import { processesOf } from '../helpers/processes.ts';

const IDLE_MS = 1000;

const files = {
  'functions/greet.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ name: s.string() }),
  handler: (ctx) => ({ greeting: 'Hello, ' + ctx.input.name, pid: Deno.pid }),
});
`,
  'functions/spin.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: () => {
    for (;;) {}
  },
});
`,
  'functions/broken.ts': `throw new Error('no configuration at load');
`,
};

let env: Awaited<ReturnType<typeof brokerFor>>;
const deno = () => processesOf(process.pid, 'deno');
let before: Set<number>;

beforeAll(async () => {
  before = new Set(deno());
  env = await brokerFor(files, { functionIdleMs: IDLE_MS });
  await env.broker.addFunction({
    name: 'greet',
    entrypoint: 'functions/greet.ts',
    access: 'public',
  });
  await env.broker.addFunction({
    name: 'spin',
    entrypoint: 'functions/spin.ts',
    access: 'public',
    timeoutMs: 4000,
  });
  await env.broker.addFunction({
    name: 'broken',
    entrypoint: 'functions/broken.ts',
    access: 'public',
  });
});
afterAll(() => env?.cleanup());

const ours = () => deno().filter((pid) => !before.has(pid));
const greet = async (name: string) => {
  const response = await callOverHttp(env.broker, 'greet', { name });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { greeting: string; pid: number } }).result;
};

describe('Functions started on demand', () => {
  it('start no process when deployed; the first call starts one and is answered', async () => {
    expect(ours()).toEqual([]);
    expect(env.broker.invoker.get('greet')?.process.pid).toBeUndefined();
    const first = await greet('Ada');
    expect(first.greeting).toBe('Hello, Ada');
    expect(ours()).toEqual([first.pid]);
  });

  it('stop after their idle time and answer the next call from a new process', async () => {
    const { pid } = await greet('Grace');
    await expect.poll(() => ours().includes(pid), { timeout: 10_000 }).toBe(false);
    expect(env.broker.invoker.get('greet')?.process.pid).toBeUndefined();
    const again = await greet('Linus');
    expect(again.greeting).toBe('Hello, Linus');
    expect(again.pid).not.toBe(pid);
    // Neither a crash nor a restart was reported for it.
    expect(env.lines.join('\n')).not.toMatch(/\[greet\] process exited/);
  });

  it('report a module that throws while loading on its own calls, and only there', async () => {
    const response = await callOverHttp(env.broker, 'broken', {});
    expect(response.status).toBe(503);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('FUNCTION_UNAVAILABLE');
    expect(error.message).toContain('no configuration at load');
    expect((await greet('Barbara')).greeting).toBe('Hello, Barbara');
  });

  it('keep one looping Function from delaying another', async () => {
    let spinSettled = false;
    const spinning = callOverHttp(env.broker, 'spin', {}).then((response) => {
      spinSettled = true;
      return response;
    });
    // The loop holds its own process only: the other Function answers while it still spins.
    await expect.poll(() => env.broker.invoker.get('spin')?.process.pid).toBeDefined();
    expect((await greet('Edsger')).greeting).toBe('Hello, Edsger');
    expect(spinSettled).toBe(false);
    expect((await spinning).status).toBe(504);
  }, 20_000);
});
