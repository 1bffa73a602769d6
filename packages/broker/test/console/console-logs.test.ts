// The console's Logs behind the page: request lines beside log entries, the filters, the bound,
// redaction of paths, and which requests get a line.
import { Redactor } from '@platform/schema/contract';
import { describe, expect, it } from 'vitest';
import { logsRequest, readLineFilter } from '../../src/console/console-routes.ts';
import { FunctionCalls, quantile } from '../../src/console/function-calls.ts';
import { LogSink } from '../../src/logs/log-sink.ts';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s)).toISOString();

describe('the console logs', () => {
  it('keeps request lines beside entries, filters them, and redacts paths', () => {
    const redactor = new Redactor();
    redactor.set(['s3cret-value']);
    const sink = new LogSink({ capacity: 3, redactor });
    const seen: string[] = [];
    const stop = sink.subscribe((line) => seen.push(line.kind));
    sink.write({
      at: at(1),
      level: 'info',
      message: 'saved',
      requestId: 'r1',
      functionName: 'save',
    });
    sink.write({
      at: at(2),
      level: 'error',
      message: 'boom',
      requestId: 'r2',
      functionName: 'load',
    });
    sink.request({
      at: at(3),
      method: 'GET',
      path: '/files/s3cret-value',
      status: 503,
      durationMs: 2,
      requestId: 'r3',
      functionName: undefined,
    });
    stop();
    sink.write({
      at: at(4),
      level: 'debug',
      message: 'late',
      requestId: 'r4',
      functionName: 'save',
    });
    expect(seen).toEqual(['log', 'log', 'request']);
    expect(sink.lines().map((l) => l.requestId)).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(sink.lines({ level: 'error' }).map((l) => l.requestId)).toEqual(['r2', 'r3']);
    expect(sink.lines({ functionName: 'save' }).map((l) => l.requestId)).toEqual(['r1', 'r4']);
    expect(sink.lines({ text: 'BOO' }).map((l) => l.requestId)).toEqual(['r2']);
    expect(sink.lines({ from: at(2), to: at(3) }).map((l) => l.requestId)).toEqual(['r2', 'r3']);
    expect(sink.lines({ limit: 1 }).map((l) => l.requestId)).toEqual(['r4']);
    const request = sink.lines({ requestId: 'r3' })[0];
    expect(request?.kind === 'request' && request.path).toBe('/files/[REDACTED]');
    // The bound: the capacity holds for entries (the oldest went).
    sink.write({ at: at(5), level: 'info', message: 'more', requestId: 'r5', functionName: 'x' });
    expect(sink.lines({ requestId: 'r1' })).toEqual([]);
  });

  it('reads filters from a query, refusing bad ones with INVALID_INPUT', () => {
    const q = (values: Record<string, string>) => (name: string) => values[name];
    expect(readLineFilter(q({ level: 'warn', function: 'f', limit: '10' }))).toMatchObject({
      level: 'warn',
      functionName: 'f',
      limit: 10,
    });
    for (const bad of [
      { level: 'loud' },
      { from: 'yesterday' },
      { limit: '0' },
      { limit: '501' },
    ]) {
      expect(() => readLineFilter(q(bad))).toThrow(
        expect.objectContaining({ code: 'INVALID_INPUT' }),
      );
    }
  });

  it('gives app traffic and direct invocations a line, not the owner API or Functions’ calls back', () => {
    expect(logsRequest('/_platform/api/functions/save')).toBe(true);
    expect(logsRequest('/')).toBe(true);
    expect(logsRequest('/v1/apps/notes/invoke/save')).toBe(true);
    expect(logsRequest('/v1/apps/notes/logs')).toBe(false);
    expect(logsRequest('/_platform/dashboard/session')).toBe(false);
    expect(logsRequest('/_platform/runtime/log')).toBe(false);
  });

  it('counts the last hour of calls per minute with their percentiles', () => {
    const calls = new FunctionCalls();
    const now = Date.parse(at(0)) + 3_600_000;
    for (const [ago, ms, ok] of [
      [0.5, 10, true],
      [0.6, 30, false],
      [59.5, 20, true],
      [61, 999, true],
    ] as const) {
      calls.add({
        name: 'f',
        requestId: `r${ms}`,
        origin: 'direct',
        at: new Date(now - ago * 60_000).toISOString(),
        durationMs: ms,
        ok,
        code: ok ? undefined : 'BOOM',
      });
    }
    const overview = calls.overview(now);
    expect(overview.total).toBe(3);
    expect(overview.failed).toBe(1);
    expect(overview.perMinute[59]).toBe(2);
    expect(overview.perMinute[0]).toBe(1);
    expect(overview.failedPerMinute[59]).toBe(1);
    expect(overview.p50).toBe(20);
    expect(overview.p99).toBe(30);
    expect(quantile([], 0.5)).toBeNull();
    // Newest added first.
    expect(calls.recent('f', 2).map((c) => c.durationMs)).toEqual([999, 20]);
  });
});
