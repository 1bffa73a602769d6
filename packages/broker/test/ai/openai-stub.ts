import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodePng } from '@platform/server/testing';

/** What the stub saw: requests by path, and streams the client closed before their end. */
export interface StubLog {
  readonly requests: { path: string; body: Record<string, unknown>; authorization: string }[];
  cancelledStreams: number;
}

/** An OpenAI-compatible stub server on 127.0.0.1 (chat completions, SSE streaming, images). */
export interface OpenAiStub {
  readonly baseUrl: string;
  readonly log: StubLog;
  close(): Promise<void>;
}

const PNG = Buffer.from(encodePng(2, 2, new Uint8Array(12).fill(200))).toString('base64');

async function json(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function lastUserText(body: Record<string, unknown>): string {
  const messages = body.messages as { role: string; content: unknown }[];
  const user = messages.filter((m) => m.role === 'user').at(-1);
  if (typeof user?.content === 'string') return user.content;
  return ((user?.content ?? []) as { type: string; text?: string }[])
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('');
}

/**
 * Starts the stub. A prompt containing `rate limit` answers 429, `server error` 500, `slow`
 * answers after 2 s, `bad json` gives non-JSON content to a structured call, `endless` streams
 * until the client goes away, `break` drops the connection after the first streamed chunk. Error bodies name the model and the server's URL, as real
 * providers' do, so tests can check that neither reaches a Function.
 */
export async function startOpenAiStub(key: string): Promise<OpenAiStub> {
  const log: StubLog = { requests: [], cancelledStreams: 0 };
  let baseUrl = '';
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const body = await json(req);
    const path = req.url ?? '';
    log.requests.push({ path, body, authorization: req.headers.authorization ?? '' });
    const model = String(body.model);
    const fail = (status: number) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `model ${model} at ${baseUrl} refused` } }));
    };
    if (req.headers.authorization !== `Bearer ${key}`) return fail(401);
    if (path.endsWith('/images/generations')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ created: 1, data: [{ b64_json: PNG }] }));
    }
    const prompt = lastUserText(body);
    if (prompt.includes('rate limit')) return fail(429);
    if (prompt.includes('server error')) return fail(500);
    if (prompt.includes('slow')) await new Promise((r) => setTimeout(r, 2000));
    const content = body.response_format
      ? prompt.includes('bad json')
        ? 'certainly! here is json'
        : JSON.stringify({ title: `Stub title for ${prompt}` })
      : `Stub says: ${prompt}`;
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({
          id: 'c1',
          object: 'chat.completion',
          created: 1,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (delta: Record<string, unknown>, finish: string | null = null) =>
      res.write(
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
      );
    if (prompt.includes('endless')) {
      let open = true;
      res.on('close', () => {
        if (open) log.cancelledStreams++;
        open = false;
      });
      while (open) {
        send({ content: 'more ' });
        await new Promise((r) => setTimeout(r, 20));
      }
      return;
    }
    if (prompt.includes('break')) {
      // The provider fails after its first chunk: the connection drops mid-answer.
      send({ role: 'assistant', content: 'Stub says: ' });
      await new Promise((r) => setTimeout(r, 20));
      res.socket?.destroy();
      return;
    }
    send({ role: 'assistant', content: '' });
    for (const word of content.split(/(?<= )/)) send({ content: word });
    send({}, 'stop');
    res.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    baseUrl,
    log,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
