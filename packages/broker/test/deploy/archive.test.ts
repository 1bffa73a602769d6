import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { limits } from '@platform/schema';
import { create } from 'tar';
import { afterAll, describe, expect, it } from 'vitest';
import { isAllowedPath, packDeployment, readDeployment } from '../../src/deploy/archive.ts';
import { writeFiles } from '../helpers/broker.ts';

const work: string[] = [];
const staging = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'archive-'));
  work.push(dir);
  return dir;
};
afterAll(async () => {
  await Promise.all(work.map((dir) => rm(dir, { recursive: true, force: true })));
});

const bytes = (text: string) => new TextEncoder().encode(text);

/** A gzip tar of `files` exactly as given, with no checks: what an attacker could upload. */
async function rawTar(files: Record<string, string>): Promise<Buffer> {
  const dir = await staging();
  await writeFiles(dir, files);
  const chunks: Buffer[] = [];
  for await (const chunk of create({ gzip: true, cwd: dir, portable: true }, Object.keys(files)))
    chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('deployment archives', () => {
  it('round-trips the files with their SHA-256 and a stable digest', async () => {
    const files = new Map([
      ['platform.yaml', bytes('schemaVersion: 3\n')],
      ['functions/hello.js', bytes('export default 1;\n')],
      ['migrations/001.sql', bytes('select 1;\n')],
      ['public/a/b.html', bytes('<p>')],
    ]);
    const one = await readDeployment(await packDeployment(files, await staging()));
    const two = await readDeployment(await packDeployment(files, await staging()));
    expect([...one.files.keys()].sort()).toEqual([...files.keys()].sort());
    expect(new TextDecoder().decode(one.files.get('public/a/b.html'))).toBe('<p>');
    expect(one.digest).toBe(two.digest);
  });

  it('refuses a file whose bytes do not match the index', async () => {
    const tampered = await rawTar({
      'deployment.json': JSON.stringify({
        format: 1,
        files: { 'platform.yaml': '0'.repeat(64) },
      }),
      'platform.yaml': 'schemaVersion: 3\n',
    });
    await expect(readDeployment(tampered)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('does not match its SHA-256'),
    });
  });

  it('refuses paths outside the deployment places, and files the index does not list', async () => {
    for (const path of [
      '../x.sql',
      'migrations/../../x',
      '/etc/passwd',
      'server.js',
      'functions/a/b.js',
    ])
      expect(isAllowedPath(path)).toBe(false);
    const extra = await rawTar({
      'deployment.json': JSON.stringify({ format: 1, files: {} }),
      'public/x.html': 'x',
    });
    await expect(readDeployment(extra)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const outside = await rawTar({
      'deployment.json': JSON.stringify({ format: 1, files: {} }),
      'node_modules/evil.js': 'x',
    });
    await expect(readDeployment(outside)).rejects.toMatchObject({
      message: expect.stringContaining('node_modules/evil.js'),
    });
  });

  it('refuses an archive over the size limit before reading it', async () => {
    const big = new Uint8Array(limits.deployment.archiveMaxBytes + 1);
    await expect(readDeployment(big)).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});
