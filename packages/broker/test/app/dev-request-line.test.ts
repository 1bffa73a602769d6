// The line `platform dev` prints for each request: the Function a path runs, the query never
// shown, and colour only where the terminal asks for it.
import { afterEach, describe, expect, it } from 'vitest';
import { functionOfPath, requestLine } from '../../src/app/dev-front.ts';

const saved = { FORCE_COLOR: process.env.FORCE_COLOR, NO_COLOR: process.env.NO_COLOR };
afterEach(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe('the request line of platform dev', () => {
  it('names the Function of a browser call, its stream and platform invoke', () => {
    expect(functionOfPath('/_platform/api/functions/listTodos')).toBe('listTodos');
    expect(functionOfPath('/_platform/api/functions/chat/stream')).toBe('chat');
    expect(functionOfPath('/v1/apps/todo-1/invoke/sendReminder')).toBe('sendReminder');
    expect(functionOfPath('/_platform/api/functions/a%2Fb')).toBe('a/b');
    expect(functionOfPath('/index.html')).toBeUndefined();
  });

  it('is plain without a terminal and with NO_COLOR, coloured with FORCE_COLOR', () => {
    delete process.env.FORCE_COLOR;
    expect(requestLine('POST', '/_platform/api/functions/listTodos', 200, 12.4)).toBe(
      'POST /_platform/api/functions/listTodos 200 12 ms listTodos',
    );
    process.env.FORCE_COLOR = '1';
    expect(requestLine('GET', '/', 404, 1)).toContain('\x1b[');
    delete process.env.FORCE_COLOR;
    process.env.NO_COLOR = '1';
    expect(requestLine('GET', '/', 404, 1)).toBe('GET / 404 1 ms');
  });

  it('makes control characters of a path printable', () => {
    expect(requestLine('GET', '/a\x1b[2Jb', 404, 1)).not.toContain('\x1b');
  });
});
