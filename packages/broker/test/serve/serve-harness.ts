// What the tests of `platform serve` share: the service and the CLI each in a process of their
// own, calls by Host to the service's port, the first administrator set up through the printed
// link, and an account credential kept where `platform login` keeps it.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { AccountCredentials } from '../../src/auth/account-credentials.ts';
import { PostgresDatabase } from '../../src/db/postgres-database.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';

/** The repository's root. */
export const root = new URL('../../../../', import.meta.url).pathname;
const bin = join(root, 'packages/broker/src/bin.ts');
/** Node's arguments to run a TypeScript file of the repository from its sources. */
export const node = (args: string[]) => [
  '--conditions=@platform/source',
  '--import',
  'tsx',
  ...args,
];

/** A free port on 127.0.0.1, so {base_url} can name it before the service starts. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A service's answer. */
export interface Answer {
  readonly status: number;
  readonly body: string;
}

/**
 * How long {@link call}'s connection may stay silent: a request that never settles fails with
 * its path named, rather than holding its test until the test's own timeout.
 */
const CALL_TIMEOUT_MS = 45_000;

/** One HTTP request to the service with the given Host. */
export function call(
  port: number,
  host: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, headers: { host, ...headers }, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.setTimeout(CALL_TIMEOUT_MS, () =>
      req.destroy(new Error(`no answer to ${path} for ${CALL_TIMEOUT_MS / 1000} s`)),
    );
    req.once('error', reject);
    req.end();
  });
}

/** Waits up to 30 s until the service on `port` answers readyz with 200 for the Host `host`. */
export async function waitReady(port: number, host: string): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const answer = await call(port, host, '/_platform/readyz').catch(() => undefined);
    if (answer?.status === 200) return;
    if (Date.now() > until) throw new Error(`not ready on ${port}: ${answer?.body}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The CLI in its own process, with only the environment `env` (a private Secret Service's),
 * and `input` on its standard input when given.
 */
export const cli = (env: NodeJS.ProcessEnv, args: string[], cwd = root, input?: string) =>
  new Promise<{ code: number | null; out: string; err: string }>((done) => {
    const child = spawn(process.execPath, node([bin, ...args]), {
      cwd,
      env: { ...env, NO_COLOR: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // Closed at once: a command that would ask for input reads its end instead.
    child.stdin.end(input);
    const out: string[] = [];
    const err: string[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => out.push(line));
    createInterface({ input: child.stderr }).on('line', (line) => err.push(line));
    child.on('close', (code) => done({ code, out: out.join('\n'), err: err.join('\n') }));
  });

/**
 * The environment of a `platform serve` on `databaseUrl` at `base` (`http://localhost:<port>`),
 * its state in `dir`: this process's environment without any setting of its own.
 */
export function serveEnv(
  databaseUrl: string,
  base: string,
  port: number,
  dir: string,
): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('PLATFORM_') && name !== 'DATABASE_URL',
    ),
  );
  return {
    ...clean,
    NO_COLOR: '1',
    PLATFORM_DATABASE_URL: databaseUrl,
    PLATFORM_BASE_DOMAIN: 'localhost',
    PLATFORM_BASE_URL: base,
    PLATFORM_LISTEN: `127.0.0.1:${port}`,
    PLATFORM_METRICS_LISTEN: '127.0.0.1:0',
    PLATFORM_FILES_DIR: join(dir, 'files'),
    PLATFORM_CREDENTIAL_KEY_FILE: join(dir, 'credentials.key'),
    PLATFORM_DRAIN_SECONDS: '5',
  };
}

/** `platform serve` with the environment `env`. */
export const startService = (env: NodeJS.ProcessEnv): ChildProcess =>
  spawn(process.execPath, node([bin, 'serve']), {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/** The key of the setup link a new service prints; what it printed is the error after 30 s. */
export function setupKey(service: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(seen)), 30_000);
    const look = (chunk: Buffer) => {
      seen += chunk;
      const key = /_platform\/setup\?key=([A-Za-z0-9_-]+)/.exec(seen)?.[1];
      if (key) {
        clearTimeout(timer);
        resolve(key);
      }
    };
    service.stdout?.on('data', look);
    service.stderr?.on('data', look);
  });
}

/** The first administrator, ada@example.com, through the printed link, as a person sets up. */
export const setUpAdministrator = (base: string, key: string) =>
  fetch(`${base}/_platform/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
    body: new URLSearchParams({
      key,
      email: 'ada@example.com',
      password: 'a long enough password',
    }),
  });

/** Runs `use` with the service's central store on the PostgreSQL server of `postgresUrl`. */
export async function withCentral<T>(
  postgresUrl: string,
  use: (central: PostgresDatabase) => Promise<T>,
): Promise<T> {
  const central = await PostgresDatabase.connect(
    postgresUrl.replace('/postgres?', '/platform_central?'),
    1,
  );
  try {
    return await use(central);
  } finally {
    await central.close();
  }
}

/**
 * The credential `platform login` would keep for the account `accountId`, minted as its device
 * flow mints it.
 */
export async function issueAccountCredential(
  central: PostgresDatabase,
  accountId: string,
  name: string,
): Promise<string> {
  return (await new AccountCredentials(central, systemClock).issue(accountId, name)).token;
}

/** ada@example.com's account id. */
export async function adaId(central: PostgresDatabase): Promise<string> {
  const { rows } = await central.query<{ id: string }>(
    "SELECT id::text FROM platform.accounts WHERE email = 'ada@example.com'",
  );
  return rows[0]?.id as string;
}

/**
 * A credential for the service's administrator, ada@example.com, as `platform login` would keep
 * it (named "test CLI"), minted in the central store on the PostgreSQL server of `postgresUrl`.
 */
export function adaCredential(postgresUrl: string): Promise<string> {
  return withCentral(postgresUrl, async (central) =>
    issueAccountCredential(central, await adaId(central), 'test CLI'),
  );
}

/**
 * Keeps `token` in the Secret Service of `env` under the account the CLI reads for `base`, from
 * a process of its own (a script in `dir`); answers its exit code.
 */
export async function keepCredential(
  env: NodeJS.ProcessEnv,
  dir: string,
  base: string,
  token: string,
): Promise<number | null> {
  const keep = join(dir, 'keep.mts');
  await writeFile(
    keep,
    `import { openCredentialStore } from ${JSON.stringify(join(root, 'packages/broker/src/cli/credential-store.ts'))};
const store = await openCredentialStore();
await store.put(process.argv[2], process.argv[3]);
`,
  );
  return new Promise<number | null>((done) =>
    spawn(process.execPath, node([keep, `account/${base}`, token]), {
      env: { ...env },
      stdio: 'ignore',
    }).on('close', done),
  );
}

/**
 * `platform deploy appDir --to base --app app` through {@link cli}; rejects, naming what it
 * printed, unless it exits 0 with nothing on stderr.
 */
export async function deploy(
  env: NodeJS.ProcessEnv,
  appDir: string,
  base: string,
  app: string,
): Promise<void> {
  const deployed = await cli(env, ['deploy', appDir, '--to', base, '--app', app]);
  if (deployed.code !== 0 || deployed.err !== '') {
    throw new Error(`platform deploy of ${app} exited ${deployed.code}:\n${deployed.err}`);
  }
}

/** `platform secrets set NAME --value-stdin` of app `app` at `base`, the value piped in. */
export const setSecret = (
  env: NodeJS.ProcessEnv,
  base: string,
  app: string,
  name: string,
  value: string,
) =>
  cli(
    env,
    ['secrets', 'set', name, '--value-stdin', '--to', base, '--app', app],
    root,
    `${value}\n`,
  );

/**
 * A mail server on loopback for a `platform serve` whose state is in `dir`: the sink that
 * receives what the service sends, and the settings that point the service at it.
 */
export async function startServeMail(
  dir: string,
): Promise<{ sink: SmtpSink; env: NodeJS.ProcessEnv }> {
  const password = 'the mail server password';
  const sink = await startSmtpSink('mailer', password);
  const passwordFile = join(dir, 'smtp-password');
  await writeFile(passwordFile, `${password}\n`);
  await chmod(passwordFile, 0o600);
  return {
    sink,
    env: {
      PLATFORM_SMTP_URL: `smtp://mailer@127.0.0.1:${sink.port}`,
      PLATFORM_SMTP_PASSWORD_FILE: passwordFile,
    },
  };
}

/** Waits up to `ms` for `check` to hold, asking every `everyMs`; answers whether it held. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  ms: number,
  everyMs = 200,
): Promise<boolean> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return true;
}

/** The platform.yaml of a one-Function app the serve suites deploy: `hello` at `GET /api/hello`. */
export const HELLO_MANIFEST = `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
  - name: hello
    entrypoint: functions/hello/index.ts
    access: public
    route:
      path: /api/hello
      methods: [GET]
`;

/**
 * The platform.yaml of a private one-Function app the sign-in suites deploy: `whoami` at
 * `GET /api/whoami`, for signed-in users only ({@link WHOAMI_SOURCE}).
 */
export const WHOAMI_MANIFEST = `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: private
functions:
  - name: whoami
    entrypoint: functions/whoami/index.ts
    access: user
    route:
      path: /api/whoami
      methods: [GET]
`;

/** `whoami`'s source: the signed-in user's id, or `null`. */
export const WHOAMI_SOURCE = `import { defineFunction, s } from '@platform/server';

export default defineFunction({
  input: s.object({}),
  handler: async ({ user }) => ({ user: user?.id ?? null }),
});
`;
