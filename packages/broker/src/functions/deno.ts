import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { HOST_ADDRESS, HOST_PORT_ENV, HOST_TOKEN_ENV } from '@platform/schema/contract';

const require = createRequire(import.meta.url);

/** The `@deno/*` package that carries the binary for this machine (optional deps of `deno`). */
function platformPackage(): string {
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  if (process.platform === 'linux') return `@deno/linux-${arch}-glibc`;
  if (process.platform === 'darwin') return `@deno/darwin-${arch}`;
  if (process.platform === 'win32') return `@deno/win32-${arch}`;
  throw new Error(`Deno is not available for ${process.platform}`);
}

let cached: string | undefined;

/**
 * Path of the Deno binary, resolved from the platform package of the `deno` npm package and
 * spawned directly (going through `npx deno` or the `deno` package's Node shim would add a Node
 * start to every Function start). `PLATFORM_DENO` overrides it.
 */
export function denoPath(): string {
  if (process.env.PLATFORM_DENO) return process.env.PLATFORM_DENO;
  if (cached) return cached;
  const pkg = platformPackage();
  const dir = dirname(require.resolve(`${pkg}/package.json`));
  const binary = join(dir, process.platform === 'win32' ? 'deno.exe' : 'deno');
  if (!existsSync(binary))
    throw new Error(`The Deno binary is missing from ${pkg}; reinstall the broker.`);
  cached = binary;
  return binary;
}

/**
 * The `deno run` arguments for one Function bundle, with least privilege: network only to the
 * broker's port, the Function's own listening port on 127.0.0.1 and the hosts of `allowNet`
 * (what the developer allowed, `platform dev --allow-net`), the two host variables of the
 * environment, and nothing else (no file system, no other environment, no subprocesses, no
 * FFI, no remote or npm imports: the bundle is self-contained), and a JavaScript heap of at most
 * `memoryMb` megabytes.
 */
export function denoRunArgs(
  bundlePath: string,
  brokerPort: number,
  hostPort: number,
  memoryMb: number,
  allowNet: readonly string[] = [],
): string[] {
  return [
    'run',
    // The JavaScript heap stops at the Function's memory limit with a fatal out-of-memory error;
    // the broker watches the whole process (bytes outside the heap too) against the same limit.
    `--v8-flags=--max-old-space-size=${memoryMb}`,
    '--no-prompt',
    '--no-config',
    '--no-lock',
    '--no-npm',
    '--no-remote',
    `--allow-net=${[`127.0.0.1:${brokerPort}`, `${HOST_ADDRESS}:${hostPort}`, ...allowNet].join(',')}`,
    `--allow-env=${HOST_PORT_ENV},${HOST_TOKEN_ENV}`,
    bundlePath,
  ];
}

// A host name or IPv4 address, or a bracketed IPv6 address, with an optional port.
const NET_HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The hosts of a `--allow-net` list (`api.example.com,127.0.0.1:9000`): each a host name or
 * address with an optional port. Throws an `Error` naming the first entry that is not one.
 */
export function parseAllowNet(list: string): string[] {
  const hosts = list
    .split(',')
    .map((one) => one.trim())
    .filter((one) => one !== '');
  for (const host of hosts) {
    const port = /:(\d+)$/.exec(host)?.[1];
    if (!NET_HOST.test(host) || (port !== undefined && Number(port) > 65535)) {
      throw new Error(
        `"${host}" is not a host: give a host name or address, optionally with :port (api.example.com, 127.0.0.1:9000).`,
      );
    }
  }
  return hosts;
}
