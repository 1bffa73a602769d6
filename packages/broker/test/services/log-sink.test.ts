import { describe, expect, it } from 'vitest';
import { formatLogLine, LogSink } from '../../src/logs/log-sink.ts';

const at = '2026-01-02T03:04:05.678Z';

describe('LogSink', () => {
  it('keeps a bounded ring, filters by request, prints one line each', () => {
    const printed: string[] = [];
    const sink = new LogSink({ capacity: 3, writer: (line) => printed.push(line) });
    for (let i = 0; i < 5; i++) {
      sink.write({
        at,
        level: 'info',
        message: `m${i}`,
        requestId: `req_${i % 2}`,
        functionName: 'f',
      });
    }
    expect(sink.list().map((r) => r.message)).toEqual(['m2', 'm3', 'm4']);
    expect(sink.list({ requestId: 'req_0' }).map((r) => r.message)).toEqual(['m2', 'm4']);
    expect(printed[0]).toBe('03:04:05.678 INFO  [f] m0 req_0');
  });

  it('prints one line per entry: control characters of message and fields are escaped', () => {
    const line = formatLogLine({
      at,
      level: 'info',
      message: 'ok\n03:04:05.678 INFO  link: http://evil.example\u001b[2J',
      fields: { note: 'a\u009bb' },
      requestId: 'req_1',
      functionName: 'f',
    });
    expect(line).toBe(
      '03:04:05.678 INFO  [f] ok\\n03:04:05.678 INFO  link: http://evil.example\\x1b[2J {"note":"a\\x9bb"} req_1',
    );
  });

  it('redacts secret values from messages and fields', () => {
    const printed: string[] = [];
    const sink = new LogSink({ writer: (line) => printed.push(line) });
    sink.redact(['s3cr3t-value', 'x']);
    sink.write({
      at,
      level: 'warn',
      message: 'key=s3cr3t-value',
      fields: { nested: { k: 's3cr3t-value' } },
      requestId: undefined,
      functionName: undefined,
    });
    expect(sink.list()[0]).toMatchObject({
      message: 'key=[REDACTED]',
      fields: { nested: { k: '[REDACTED]' } },
    });
    expect(printed.join('')).not.toContain('s3cr3t');
    expect(formatLogLine(sink.list()[0]!)).toContain('WARN');
  });
});
