// `platform dev --allow-net`: the hosts a developer lets Functions reach, checked before start.
import { describe, expect, it } from 'vitest';
import { parseAllowNet } from '../../src/functions/deno.ts';

describe('parseAllowNet', () => {
  it('reads host names, addresses and ports, comma-separated', () => {
    expect(parseAllowNet('api.example.com, 127.0.0.1:9000,[::1]:8080')).toEqual([
      'api.example.com',
      '127.0.0.1:9000',
      '[::1]:8080',
    ]);
    expect(parseAllowNet('')).toEqual([]);
  });

  it('refuses what is not a host, naming it', () => {
    expect(() => parseAllowNet('api.example.com,https://x.example')).toThrow(
      /"https:\/\/x.example" is not a host/,
    );
    expect(() => parseAllowNet('a.example:70000')).toThrow(/"a.example:70000" is not a host/);
    expect(() => parseAllowNet('a.example/path')).toThrow(/is not a host/);
  });
});
