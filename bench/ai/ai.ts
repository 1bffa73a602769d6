// Broker overhead per `ctx.ai.generateText` over the provider's own time. The provider is an
// OpenAI-compatible stub (node:http on loopback, in its own process so it never shares the
// broker's event loop) answering a fixed chat completion. Baseline: the same request POSTed
// straight to the stub from this process (the provider's own time as a client sees it). Ours:
// the broker's AI service (prompt and attachment checks, the AI SDK model call, the provider
// request, error mapping, the call listing) against the same stub. Alternated rounds, median
// of per-round p50s (AI_BENCH_CALLS per round, default 400; AI_BENCH_ROUNDS, default 3).
// Streaming: time to the first chunk of `streamText` out of the broker's stream against the
// first SSE chunk read straight from the stub (which sends the rest 30 ms later).
// Into a Function: the same two calls made by a real Deno Function under the broker, called over
// HTTP, against the same broker's no-op Function plus the direct stub figure (what a Function
// that asks the provider itself could at best take).
//
// As a suite of bench/run.ts: `ai: () => import('./ai/ai.ts')`.
// Alone: `npx tsx --conditions=@platform/source bench/ai/ai.ts`.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startBroker } from '../../packages/broker/src/app/start-broker.ts';
import { defaultSnapshotPath } from '../../packages/broker/src/db/open-database.ts';
import { anonymousCaller } from '../../packages/broker/src/kernel/caller.ts';
import { median, type Row, row } from '../report.ts';

const CALLS = Number(process.env.AI_BENCH_CALLS ?? 400);
const ROUNDS = Number(process.env.AI_BENCH_ROUNDS ?? 3);
const KEY = 'sk-bench';
const MODEL = 'bench-model';

const stubSource = `
const http = require('node:http');
const answer = JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: '${MODEL}',
  choices: [{ index: 0, message: { role: 'assistant', content: 'A short answer.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } });
const chunk = (content, finish) => 'data: ' + JSON.stringify({ id: 'c1', object: 'chat.completion.chunk',
  created: 1, model: '${MODEL}', choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }] }) + '\\n\\n';
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    if (!JSON.parse(body).stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(answer);
    }
    // The first chunk at once, the rest 30 ms later: time to first chunk is then unmistakable.
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk('A ', null));
    setTimeout(() => { res.write(chunk('short answer.', null)); res.end(chunk(undefined, 'stop') + 'data: [DONE]\\n\\n'); }, 30);
  });
});
server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));
`;

// The Functions of the "into a Function" rows: the call itself, and a no-op for the hop's cost.
const functionSources: Record<string, string> = {
  noop: `import { defineFunction, s } from '@platform/server';
export default defineFunction({ input: s.object({}), handler: () => ({ text: '' }) });
`,
  ask: `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: (ctx) => ctx.ai.generateText({ prompt: 'Say something short.' }),
});
`,
  first: `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({}),
  handler: async (ctx) => {
    const reader = (await ctx.ai.streamText({ prompt: 'Say something short.' })).getReader();
    const { value } = await reader.read();
    await reader.cancel();
    return { text: value ?? '' };
  },
});
`,
};

const p50 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[values.length >> 1] ?? Number.NaN;

async function timed(calls: number, call: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  return p50(times);
}

/** Runs the suite and returns its rows. */
export async function run(): Promise<Row[]> {
  const stub = spawn(process.execPath, ['-e', stubSource], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve) => {
    createInterface({ input: stub.stdout! }).on('line', (line) => {
      const match = /^port (\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
    });
  });
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const appDir = await mkdtemp(join(tmpdir(), 'bench-ai-'));
  await mkdir(join(appDir, 'functions'));
  for (const [name, source] of Object.entries(functionSources)) {
    await writeFile(join(appDir, 'functions', `${name}.ts`), source);
  }
  const broker = await startBroker({
    appDir,
    sdkVersion: '2.6.0',
    databaseUrl: '',
    snapshotPath: defaultSnapshotPath(),
    logWriter: () => undefined,
    authenticate: async () => anonymousCaller,
    ai: { baseUrl, apiKey: KEY, models: { text: MODEL } },
  });
  try {
    const grant = {
      requestId: 'req_bench',
      functionName: 'bench',
      caller: anonymousCaller,
      sdkVersion: '2.6.0',
      secrets: [],
      emailAliases: [],
    };
    const body = JSON.stringify({
      model: MODEL,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say something short.' }] }],
    });
    const direct = () =>
      fetch(`${baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body,
      }).then((r) => r.json());
    const viaBroker = () => broker.ai.generateText({ prompt: 'Say something short.' }, { grant });
    await timed(100, direct);
    await timed(100, viaBroker);
    const baseline: number[] = [];
    const ours: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      baseline.push(await timed(CALLS, direct));
      ours.push(await timed(CALLS, viaBroker));
    }
    const [b, o] = [median(baseline), median(ours)];
    const overhead = o - b;
    // Time to the first streamed chunk: straight from the stub, and out of the broker's stream.
    const firstDirect = async () => {
      const response = await fetch(`${baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ ...JSON.parse(body), stream: true }),
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      await reader.cancel();
    };
    const firstViaBroker = async () => {
      const stream = await broker.ai.streamText({ prompt: 'Say something short.' }, { grant });
      const reader = stream.getReader();
      await reader.read();
      await reader.cancel();
    };
    const STREAM_CALLS = Math.max(50, CALLS >> 2);
    await timed(20, firstDirect);
    await timed(20, firstViaBroker);
    const firstBaseline: number[] = [];
    const firstOurs: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      firstBaseline.push(await timed(STREAM_CALLS, firstDirect));
      firstOurs.push(await timed(STREAM_CALLS, firstViaBroker));
    }
    const [fb, fo] = [median(firstBaseline), median(firstOurs)];

    // Into a Function: the Function's call over HTTP, as a browser makes it.
    for (const name of Object.keys(functionSources)) {
      await broker.addFunction({ name, entrypoint: `functions/${name}.ts`, access: 'public' });
    }
    const callFunction = (name: string) => async () => {
      const response = await fetch(`${broker.server.url}/_platform/api/functions/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      if (!response.ok) throw new Error(`${name} answered ${response.status}`);
      await response.json();
    };
    const FUNCTION_CALLS = Math.max(50, CALLS >> 1);
    for (const name of Object.keys(functionSources)) await timed(50, callFunction(name));
    const rounds: Record<string, number[]> = { noop: [], ask: [], first: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of Object.keys(rounds)) {
        rounds[name]!.push(await timed(FUNCTION_CALLS, callFunction(name)));
      }
    }
    const [noop, ask, first] = [median(rounds.noop!), median(rounds.ask!), median(rounds.first!)];
    return [
      row(
        'ai generateText p50 in a Deno Function: Function with ctx.ai vs no-op Function + direct POST',
        `${ask.toFixed(2)} ms (added ${(ask - noop - b).toFixed(2)} ms)`,
        `${(noop + b).toFixed(2)} ms (no-op ${noop.toFixed(2)} + direct ${b.toFixed(2)})`,
        ask / (noop + b),
        { text: 'added < 5 ms', met: ask - noop - b < 5 },
      ),
      row(
        'ai streamText first chunk in a Deno Function: Function vs no-op Function + direct SSE',
        `${first.toFixed(2)} ms (added ${(first - noop - fb).toFixed(2)} ms)`,
        `${(noop + fb).toFixed(2)} ms (no-op ${noop.toFixed(2)} + direct ${fb.toFixed(2)})`,
        first / (noop + fb),
        { text: 'added < 20 ms', met: first - noop - fb < 20 },
      ),
      row(
        'ai streamText p50 time to first chunk: broker AI service vs direct SSE from the stub',
        `${fo.toFixed(2)} ms (added ${(fo - fb).toFixed(2)} ms)`,
        `${fb.toFixed(2)} ms`,
        fo / fb,
        { text: 'added < 20 ms', met: fo - fb < 20 },
      ),
      row(
        'ai generateText p50: broker AI service vs direct POST to the provider stub',
        `${o.toFixed(2)} ms (overhead ${overhead.toFixed(2)} ms)`,
        `${b.toFixed(2)} ms`,
        o / b,
        { text: 'overhead < 5 ms', met: overhead < 5 },
      ),
    ];
  } finally {
    await broker.close();
    stub.kill('SIGTERM');
    await rm(appDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { print } = await import('../report.ts');
  print(await run());
}
