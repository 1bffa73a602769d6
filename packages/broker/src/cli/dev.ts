import { relative, resolve } from 'node:path';
import { formatDiagnostic } from '@platform/schema/manifest';
import { type AiOptions, aiOptionsFromEnv } from '../ai/ai-config.ts';
import {
  DEV_DATABASE_ENGINES,
  type DevDatabaseEngine,
  devDatabaseEngine,
} from '../app/dev-database-engine.ts';
import type { DevPreparation, DevServer } from '../app/start-dev.ts';
import type { WorkspaceOptions, WorkspaceServer } from '../app/start-workspace.ts';
import { parseAllowNet } from '../functions/deno.ts';
import {
  MAX_WORKSPACE_APPS,
  readWorkspaceFile,
  WorkspaceFileError,
} from '../project/workspace-file.ts';
import { type CliIO, defineCommand, exitCodes } from './io.ts';
import { isPortFree } from './port.ts';

/** The port `platform dev` tries when none is given. */
export const DEFAULT_DEV_PORT = 4310;

const usage = `Usage: platform dev [appDir...] [--workspace <dir>] [--port <n>] [--smtp-port <n>] [--no-watch] [--allow-net <hosts>] [--environment <env>] [--ai-mode <mode>] [--database <engine>] [--quiet | --verbose]

Serves the app in <appDir> (default: the current directory) at http://localhost:<port>: its
Functions, data, files and frontend (public/). Prints the URL on a line of its own once ready,
then the dashboard's link (it carries the dev token of .platform/dev.json), then the SMTP
listener that receives the app's mail (docs/email.md).
Then one line per request answered (method, path, status, duration, the Function it ran), job
or cron attempt, email sent or received, integration call and event delivery; colour on a
terminal, none with NO_COLOR or in a pipe.
Stops on Ctrl-C (SIGINT) or SIGTERM, with every Function process, also while it starts.

Several app folders run as one organisation: each app at http://<appId>.localhost:<port> on
its own port (the following ports), with its own database, files, secrets and jobs, and the
organisation's page and owner API (/v1/apps/<appId>/...) on the port after them.
--workspace <dir> serves the organisation and the app folders that <dir>/platform-workspace.yaml
names (docs/organisations.md).

Options:
  --workspace <dir>
                 Serve the apps listed in <dir>/platform-workspace.yaml.
  --port <n>     Port on localhost (the first app's); 0 picks free ones. Default
                 ${DEFAULT_DEV_PORT}, or free ports when ${DEFAULT_DEV_PORT} is taken.
  --smtp-port <n>
                 Port of the SMTP listener on 127.0.0.1 (inbound email; one app only).
                 Default: a free port.
  --no-watch     Do not re-bundle changed Functions or reload platform.yaml.
  --allow-net <hosts>
                 Hosts the Functions may reach, comma-separated (api.example.com,
                 127.0.0.1:9000); by default they reach only the broker.
  --start-functions <when>
                 ready (the default): start every Function's process in the background once
                 the app is ready, so no first call waits for one to start; call: start each
                 on its first call (a Function never called holds no memory).
  --environment <env>
                 development (the default) or production: serve the apps as production
                 does (ctx.environment, integration calls reach the providers, emitted
                 integration events are delivered; no fake/live switch, no injected events).
  --database <engine>
                 Where the databases live (docs/dev-database.md): pglite (the default;
                 .platform/db and .platform/central) or cluster (a private PostgreSQL
                 server in .platform/cluster, holding the central store and one database
                 per app). Overrides PLATFORM_DEV_DATABASE; DATABASE_URL wins over both.
  --ai-mode <m>  live, record (store answers in ai-recordings.json) or replay (answer from it,
                 offline). Overrides PLATFORM_AI_MODE.
  --quiet        Print no line per request, job, email or integration call (one app only).
  --verbose      Also print the Functions' own calls to the broker and each step of the start.
  -h, --help     Show this help.

AI (docs/ai.md): with no configuration ctx.ai answers offline and deterministically (pin
answers in ai-fixtures.yaml). PLATFORM_AI_BASE_URL, PLATFORM_AI_API_KEY and PLATFORM_AI_MODEL
(or PLATFORM_AI_TEXT_MODEL, _VISION_MODEL, _OBJECT_MODEL, _IMAGE_MODEL) select an
OpenAI-compatible endpoint instead. PLATFORM_AI_SHOW_CONTENT=1 shows each call's prompt and
output in the dashboard (kept in memory on this machine only).`;

/** Resolves on the first SIGINT or SIGTERM. */
function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      // A second signal while stopping: give up waiting.
      const force = () => process.exit(exitCodes.failed);
      process.once('SIGINT', force);
      process.once('SIGTERM', force);
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/**
 * How long a start cut short by Ctrl-C may take to close what it opened before the process
 * exits anyway: a step such as creating a new database cannot be interrupted, and Ctrl-C is
 * honoured within a second. Lock files are removed as the process exits (db/data-dir-lock.ts).
 */
const STOP_GRACE_MS = 800;

/**
 * Starts a server unless a stop signal comes first. The signal aborts the start, which closes
 * what it had opened at its next step; a start that finishes meanwhile is closed at once. Resolves
 * to the server, the start's error, or the signal once the start has unwound; a start that has
 * not unwound within {@link STOP_GRACE_MS} ends the process.
 */
async function startUnlessStopped<T extends { close(): Promise<void> }>(
  start: (signal: AbortSignal) => Promise<T>,
  stopped: Promise<NodeJS.Signals>,
  io: CliIO,
): Promise<{ server: T } | { error: unknown } | { signal: NodeJS.Signals }> {
  const abort = new AbortController();
  const starting = start(abort.signal).then(
    (server) => ({ server }),
    (error: unknown) => ({ error }),
  );
  const first = await Promise.race([starting, stopped.then((signal) => ({ signal }))]);
  if (!('signal' in first)) return first;
  io.stdout(`Stopping (${first.signal})...`);
  abort.abort(new Error(`stopped by ${first.signal}`));
  const unwound = starting.then(async (outcome) => {
    if ('server' in outcome) await outcome.server.close();
    return true;
  });
  const grace = new Promise<false>((resolve) => setTimeout(resolve, STOP_GRACE_MS, false).unref());
  if (!(await Promise.race([unwound, grace]))) process.exit(exitCodes.ok);
  return first;
}

/**
 * The line a start prints before work that takes seconds once per machine: what it does, that it
 * happens once, and about how long it takes (the embedded database: initdb and every schema step,
 * 5-15 s on a laptop; the private cluster's template: initdb alone, 0.5-2 s).
 */
export function preparingLine(work: DevPreparation): string {
  const takes = work === 'the embedded database' ? 'about 10 s' : 'a few seconds';
  return `Preparing ${work} (once per machine, ${takes})...`;
}

/** The line that tells where the app receives mail. */
function mailLine(dev: DevServer): string {
  const mail = dev.broker.inboundMail;
  const addresses = mail.addresses.list();
  if (mail.functionName === undefined) {
    return `Mail: ${dev.smtp.url} (this app takes no mail: platform.yaml declares no email.inbound.function)`;
  }
  return `Mail: ${dev.smtp.url} for ${addresses.join(', ') || '(no email.aliases declared)'} -> ${mail.functionName}`;
}

/** `platform dev [appDir] --port <n>`: runs the app until SIGINT or SIGTERM. */
export const devCommand = defineCommand({
  name: 'dev',
  summary: 'Serve an app locally: Functions, data, files and frontend, reloaded on change.',
  usage,
  options: {
    port: { type: 'string' },
    'smtp-port': { type: 'string' },
    watch: { type: 'boolean', default: true },
    'ai-mode': { type: 'string' },
    workspace: { type: 'string' },
    'allow-net': { type: 'string' },
    'start-functions': { type: 'string' },
    environment: { type: 'string' },
    database: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
  },
  maxPositionals: MAX_WORKSPACE_APPS,
  async run(parsed, io, usageError) {
    const portText = parsed.values.port;
    if (portText !== undefined && !/^\d{1,5}$/.test(portText)) {
      return usageError('--port must be a number');
    }
    const smtpPortText = parsed.values['smtp-port'];
    if (smtpPortText !== undefined && !/^\d{1,5}$/.test(smtpPortText)) {
      return usageError('--smtp-port must be a number');
    }
    let allowNet: string[] = [];
    try {
      allowNet = parseAllowNet(parsed.values['allow-net'] ?? '');
    } catch (error) {
      return usageError(`--allow-net: ${(error as Error).message}`);
    }
    const startFunctions = parsed.values['start-functions'] ?? 'ready';
    if (startFunctions !== 'ready' && startFunctions !== 'call') {
      return usageError('--start-functions must be ready or call');
    }
    const environment = parsed.values.environment ?? 'development';
    if (environment !== 'development' && environment !== 'production') {
      return usageError('--environment must be development or production');
    }
    let database: DevDatabaseEngine;
    try {
      database = devDatabaseEngine(parsed.values.database as DevDatabaseEngine | undefined);
    } catch {
      return usageError(`--database must be ${DEV_DATABASE_ENGINES.join(' or ')}`);
    }
    if (parsed.values.quiet && parsed.values.verbose) {
      return usageError('--quiet and --verbose exclude each other');
    }
    const aiMode = parsed.values['ai-mode'];
    let ai: AiOptions;
    try {
      ai = aiOptionsFromEnv({
        ...process.env,
        ...(aiMode === undefined ? {} : { PLATFORM_AI_MODE: aiMode }),
      });
    } catch (error) {
      return usageError((error as Error).message);
    }
    const workspaceDir = parsed.values.workspace;
    if (workspaceDir !== undefined || parsed.positionals.length > 1) {
      if (smtpPortText !== undefined) {
        return usageError('--smtp-port serves one app; with several apps each gets a free port');
      }
      if (workspaceDir !== undefined && parsed.positionals.length > 0) {
        return usageError('--workspace lists the app folders; give no folders besides it');
      }
      let workspace: Workspace = { appDirs: parsed.positionals.map((dir) => resolve(io.cwd, dir)) };
      if (workspaceDir !== undefined) {
        try {
          const file = await readWorkspaceFile(resolve(io.cwd, workspaceDir));
          workspace = { ...file, workspaceDir: file.dir };
        } catch (error) {
          if (!(error instanceof WorkspaceFileError)) throw error;
          io.stderr(`platform dev: ${error.message}`);
          return exitCodes.failed;
        }
      }
      return runWorkspace(
        workspace,
        portText,
        parsed.values.watch,
        { ai, allowNet, environment, startFunctions, database },
        io,
      );
    }
    const appDir = resolve(io.cwd, parsed.positionals[0] ?? '.');
    let port = portText === undefined ? DEFAULT_DEV_PORT : Number(portText);
    if (portText === undefined && !(await isPortFree(port))) {
      io.stderr(`Port ${port} is in use; using a free port instead (pass --port to choose).`);
      port = 0;
    }
    const stopped = stopSignal();
    // The broker loads when `platform dev` runs, not with the CLI: every other command (and
    // `--help`) starts without it.
    const { startDev, ManifestInvalidError } = await import('../app/start-dev.ts');
    const started = await startUnlessStopped(
      (signal) =>
        startDev({
          appDir,
          port,
          ...(smtpPortText === undefined ? {} : { smtpPort: Number(smtpPortText) }),
          watch: parsed.values.watch,
          logWriter: io.stdout,
          ai,
          allowNet,
          environment,
          startFunctions,
          database,
          signal,
          ...(parsed.values.quiet
            ? {}
            : { activity: { write: io.stdout, verbose: parsed.values.verbose } }),
          ...(parsed.values.verbose ? { onStep: (step) => io.stdout(`Starting: ${step}`) } : {}),
          onPreparing: (work) => io.stdout(preparingLine(work)),
        }),
      stopped,
      io,
    );
    if ('signal' in started) return exitCodes.ok;
    if ('error' in started) {
      const { error } = started;
      if (error instanceof ManifestInvalidError) {
        const file = relative(io.cwd, resolve(appDir, 'platform.yaml'));
        for (const d of error.errors) io.stderr(formatDiagnostic(d, file));
        io.stderr(`${file}: ${error.errors.length} error(s); not starting.`);
      } else io.stderr(`platform dev: ${(error as Error).message}`);
      return exitCodes.failed;
    }
    const dev: DevServer = started.server;
    const count = dev.broker.invoker.list().length;
    io.stdout(
      `platform dev: ${relative(io.cwd, appDir) || '.'} ready in ${dev.readyMs} ms (${count} Function${count === 1 ? '' : 's'})`,
    );
    io.stdout(dev.url);
    // The dev token is already readable in .platform/dev.json by whoever sees this terminal.
    io.stdout(`Dashboard: ${dev.dashboardUrl}`);
    io.stdout(mailLine(dev));
    const signal = await stopped;
    io.stdout(`Stopping (${signal})...`);
    await dev.close();
    return exitCodes.ok;
  },
});

/** `platform dev a b ...`: the apps as one organisation, until SIGINT or SIGTERM. */
/** The apps to serve together, with the organisation and folder a workspace file names. */
interface Workspace {
  readonly appDirs: readonly string[];
  readonly organisation?: string;
  readonly workspaceDir?: string;
}

async function runWorkspace(
  { appDirs, organisation, workspaceDir }: Workspace,
  portText: string | undefined,
  watch: boolean | undefined,
  served: Pick<WorkspaceOptions, 'ai' | 'allowNet' | 'environment' | 'startFunctions' | 'database'>,
  io: CliIO,
): Promise<number> {
  let port = portText === undefined ? DEFAULT_DEV_PORT : Number(portText);
  if (portText === undefined && !(await isPortFree(port))) {
    io.stderr(`Port ${port} is in use; using free ports instead (pass --port to choose).`);
    port = 0;
  }
  const stopped = stopSignal();
  const [{ startWorkspace }, { ManifestInvalidError }] = await Promise.all([
    import('../app/start-workspace.ts'),
    import('../app/start-dev.ts'),
  ]);
  // A workspace's start is not cut short step by step: Ctrl-C ends it after the grace.
  const started = await startUnlessStopped(
    () =>
      startWorkspace({
        appDirs,
        ...(organisation === undefined ? {} : { organisation }),
        ...(workspaceDir === undefined ? {} : { workspaceDir }),
        port,
        watch: watch !== false,
        logWriter: io.stdout,
        onPreparing: (work) => io.stdout(preparingLine(work)),
        ...served,
      }),
    stopped,
    io,
  );
  if ('signal' in started) return exitCodes.ok;
  if ('error' in started) {
    const { error } = started;
    if (error instanceof ManifestInvalidError) {
      for (const d of error.errors) io.stderr(formatDiagnostic(d, 'platform.yaml'));
      io.stderr(`platform.yaml: ${error.errors.length} error(s); not starting.`);
    } else io.stderr(`platform dev: ${(error as Error).message}`);
    return exitCodes.failed;
  }
  const workspace: WorkspaceServer = started.server;
  io.stdout(`platform dev: organisation ${workspace.organisation}, ${workspace.apps.length} apps`);
  for (const app of workspace.apps) {
    io.stdout(`${app.appId}  ${app.url}`);
    io.stdout(mailLine(app));
  }
  // The dev token is already readable in each app's .platform/dev.json by whoever sees this.
  io.stdout(`Organisation: ${workspace.dashboardUrl}`);
  const signal = await stopped;
  io.stdout(`Stopping (${signal})...`);
  await workspace.close();
  return exitCodes.ok;
}
