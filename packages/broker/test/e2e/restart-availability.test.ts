// What callers see while a changed platform.yaml restarts the app: every request gets an answer
// (no refused connection), which is the new version's or a retryable 503 until it serves; never
// FUNCTION_NOT_FOUND for a Function the new version declares.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevServer } from '../../src/app/start-dev.ts';
import { writeFiles } from '../helpers/broker.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { fixtureApp } from './fixture-app.ts';
import { devFor } from './helpers.ts';

let app: { path: string; remove: () => Promise<void> };
let dev: DevServer;

beforeAll(async () => {
  app = await tempDir('restart-');
  await writeFiles(app.path, fixtureApp);
  ({ dev } = await devFor(app.path));
});

afterAll(async () => {
  await dev?.close();
  await app?.remove();
});

/** One call of the echo Function: `200`, `<status> <code> <retryable>`, or how it failed. */
async function callEcho(): Promise<string> {
  try {
    const response = await fetch(`${dev.url}/_platform/api/functions/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"text":"hi"}',
    });
    const body = (await response.json()) as { error?: { code: string; retryable: boolean } };
    if (response.ok) return '200';
    return `${response.status} ${body.error?.code} ${body.error?.retryable ? 'retryable' : 'final'}`;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return `failed ${cause?.code ?? (error as Error).message}`;
  }
}

describe('a platform.yaml restart as callers see it', () => {
  it('answers every call: the new version, or a retryable 503 until it serves', async () => {
    const seen = new Map<string, number>();
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const outcome = await callEcho();
        seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The Function's new route: the restart serves a changed declaration.
    await writeFile(
      join(app.path, 'platform.yaml'),
      fixtureApp['platform.yaml']!.replace('path: /echo/:word', 'path: /say/:word'),
    );
    await dev.settled();
    await new Promise((resolve) => setTimeout(resolve, 300));
    polling = false;
    await poller;
    expect((await fetch(`${dev.url}/say/hello`)).status).toBe(200);
    const unexpected = [...seen.keys()].filter(
      (outcome) => outcome !== '200' && outcome !== '503 APP_RESTARTING retryable',
    );
    expect(unexpected).toEqual([]);
    expect(seen.get('503 APP_RESTARTING retryable')).toBeGreaterThan(0);
  });
});
