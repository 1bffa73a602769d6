// The `platform` CLI (the @platform/broker package) is versioned on its own line: the spec gives
// it 3.11.0 (the first CLI with `app access-token request`) while the SDK packages are on 2.x.
// `platform --version` prints the CLI's version, changesets bumps the CLI apart from the SDK, and
// a new app still pins the SDK's versions.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { assembleReleasePlan } from '@changesets/assemble-release-plan';
import { readConfig } from '@changesets/config';
import { getPackages } from '@manypkg/get-packages';
import { describe, expect, it } from 'vitest';
import { starterApp } from '../src/cli/init-files.ts';
import type { CliIO } from '../src/cli/io.ts';
import { main } from '../src/cli/main.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
/** The CLI version the spec names as providing `app access-token request`. */
const specCli = '3.11.0';

const versionOf = (name: string) =>
  (
    JSON.parse(readFileSync(new URL(`../../${name}/package.json`, import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;

describe('the version of the platform CLI', () => {
  it('platform --version prints the CLI line, not the SDK version', async () => {
    const out: string[] = [];
    const io: CliIO = { stdout: (l) => out.push(l), stderr: () => {}, cwd: root };
    expect(await main(['--version'], io)).toBe(0);
    const [printed] = out;
    expect(printed).toBe(versionOf('broker'));
    // Same major as the spec's CLI and no older than it.
    const [major, minor] = (printed ?? '').split('.').map(Number);
    const [specMajor, specMinor] = specCli.split('.').map(Number);
    expect(major).toBe(specMajor);
    expect(minor).toBeGreaterThanOrEqual(specMinor ?? 0);
    expect(printed).not.toBe(versionOf('server'));
  });

  it('a new app pins the SDK packages at the SDK version and the CLI at its own', () => {
    const pkg = JSON.parse(starterApp({ name: 'pins' })['package.json']) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const all = { ...pkg.dependencies, ...pkg.devDependencies };
    expect(all['@platform/server']).toBe(versionOf('server'));
    expect(all['@platform/browser']).toBe(versionOf('browser'));
    expect(all['@platform/schema']).toBe(versionOf('schema'));
    expect(all['@platform/broker']).toBe(versionOf('broker'));
    expect(starterApp({ name: 'pins' })['platform.yaml']).toContain(
      `version: ${versionOf('server')}`,
    );
  });

  it('changesets bumps the SDK packages together and the CLI on its own line', async () => {
    const packages = await getPackages(root);
    const read = await readConfig(root, packages);
    if (read.config === undefined) throw new Error(read.errors.join('\n'));
    const plan = (name: string, type: 'minor' | 'patch') =>
      new Map(
        assembleReleasePlan(
          [{ id: 'release-line', summary: 'A change.', releases: [{ name, type }] }],
          packages,
          read.config,
          undefined,
        ).releases.map((release) => [release.name, release.newVersion]),
      );

    // An SDK change moves every SDK package to one version; the CLI, which pins the SDK exactly,
    // takes a patch on its own line.
    const sdk = plan('@platform/server', 'minor');
    const [major, minor] = versionOf('server').split('.').map(Number);
    const nextSdk = `${major}.${(minor ?? 0) + 1}.0`;
    for (const name of ['errors', 'schema', 'server', 'browser']) {
      expect(sdk.get(`@platform/${name}`)).toBe(nextSdk);
    }
    const [cliMajor, cliMinor, cliPatch] = versionOf('broker').split('.').map(Number);
    expect(sdk.get('@platform/broker')).toBe(`${cliMajor}.${cliMinor}.${(cliPatch ?? 0) + 1}`);

    // A CLI change bumps the CLI, and `npm create @platform/app`, which runs that exact CLI, with
    // it; never the SDK.
    const cli = plan('@platform/broker', 'minor');
    expect([...cli.keys()].sort()).toEqual(['@platform/broker', '@platform/create-app']);
    expect(cli.get('@platform/broker')).toBe(`${cliMajor}.${(cliMinor ?? 0) + 1}.0`);
  });
});
