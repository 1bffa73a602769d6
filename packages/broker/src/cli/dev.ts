import { relative, resolve } from 'node:path';
import { formatDiagnostic } from '@platform/schema/manifest';
import { type DevServer, ManifestInvalidError, startDev } from '../app/start-dev.ts';
import { startWorkspace, type WorkspaceServer } from '../app/start-workspace.ts';
import { type CliIO, defineCommand, exitCodes } from './io.ts';
import { isPortFree } from './port.ts';

/** The port `platform dev` tries when none is given. */
export const DEFAULT_DEV_PORT = 4310;

const usage = `Usage: platform dev [appDir...] [--port <n>] [--no-watch]

Serves the app in <appDir> (default: the current directory) at http://localhost:<port>: its
Functions, data, files and frontend (public/). Prints the URL on a line of its own once ready,
then the dashboard's link (it carries the dev token of .platform/dev.json).
Stops on Ctrl-C (SIGINT) or SIGTERM, with every Function process.

Several app folders run as one organisation: each app at http://<appId>.localhost:<port> on
its own port (the following ports), with its own database, files, secrets and jobs, and the
organisation's page and owner API (/v1/apps/<appId>/...) on the port after them.

Options:
  --port <n>     Port on localhost (the first app's); 0 picks free ones. Default
                 ${DEFAULT_DEV_PORT}, or free ports when ${DEFAULT_DEV_PORT} is taken.
  --no-watch     Do not re-bundle changed Functions or reload platform.yaml.
  -h, --help     Show this help.`;

/** Most app folders one `platform dev` serves (ports are taken one after another). */
const MAX_WORKSPACE_APPS = 20;

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

/** `platform dev [appDir] --port <n>`: runs the app until SIGINT or SIGTERM. */
export const devCommand = defineCommand({
  name: 'dev',
  summary: 'Serve an app locally: Functions, data, files and frontend, reloaded on change.',
  usage,
  options: { port: { type: 'string' }, watch: { type: 'boolean', default: true } },
  maxPositionals: MAX_WORKSPACE_APPS,
  async run(parsed, io, usageError) {
    const portText = parsed.values.port;
    if (portText !== undefined && !/^\d{1,5}$/.test(portText)) {
      return usageError('--port must be a number');
    }
    if (parsed.positionals.length > 1) {
      return runWorkspace(parsed.positionals, portText, parsed.values.watch, io);
    }
    const appDir = resolve(io.cwd, parsed.positionals[0] ?? '.');
    let port = portText === undefined ? DEFAULT_DEV_PORT : Number(portText);
    if (portText === undefined && !(await isPortFree(port))) {
      io.stderr(`Port ${port} is in use; using a free port instead (pass --port to choose).`);
      port = 0;
    }
    const stopped = stopSignal();
    let dev: DevServer;
    try {
      dev = await startDev({ appDir, port, watch: parsed.values.watch, logWriter: io.stdout });
    } catch (error) {
      if (error instanceof ManifestInvalidError) {
        const file = relative(io.cwd, resolve(appDir, 'platform.yaml'));
        for (const d of error.errors) io.stderr(formatDiagnostic(d, file));
        io.stderr(`${file}: ${error.errors.length} error(s); not starting.`);
      } else io.stderr(`platform dev: ${(error as Error).message}`);
      return exitCodes.failed;
    }
    const count = dev.broker.invoker.list().length;
    io.stdout(
      `platform dev: ${relative(io.cwd, appDir) || '.'} ready in ${dev.readyMs} ms (${count} Function${count === 1 ? '' : 's'})`,
    );
    io.stdout(dev.url);
    // The dev token is already readable in .platform/dev.json by whoever sees this terminal.
    io.stdout(`Dashboard: ${dev.dashboardUrl}`);
    const signal = await stopped;
    io.stdout(`Stopping (${signal})...`);
    await dev.close();
    return exitCodes.ok;
  },
});

/** `platform dev a b ...`: the apps as one organisation, until SIGINT or SIGTERM. */
async function runWorkspace(
  folders: readonly string[],
  portText: string | undefined,
  watch: boolean | undefined,
  io: CliIO,
): Promise<number> {
  const appDirs = folders.map((folder) => resolve(io.cwd, folder));
  let port = portText === undefined ? DEFAULT_DEV_PORT : Number(portText);
  if (portText === undefined && !(await isPortFree(port))) {
    io.stderr(`Port ${port} is in use; using free ports instead (pass --port to choose).`);
    port = 0;
  }
  const stopped = stopSignal();
  let workspace: WorkspaceServer;
  try {
    workspace = await startWorkspace({
      appDirs,
      port,
      watch: watch !== false,
      logWriter: io.stdout,
    });
  } catch (error) {
    if (error instanceof ManifestInvalidError) {
      for (const d of error.errors) io.stderr(formatDiagnostic(d, 'platform.yaml'));
      io.stderr(`platform.yaml: ${error.errors.length} error(s); not starting.`);
    } else io.stderr(`platform dev: ${(error as Error).message}`);
    return exitCodes.failed;
  }
  io.stdout(`platform dev: organisation ${workspace.organisation}, ${workspace.apps.length} apps`);
  for (const app of workspace.apps) io.stdout(`${app.appId}  ${app.url}`);
  // The dev token is already readable in each app's .platform/dev.json by whoever sees this.
  io.stdout(`Organisation: ${workspace.dashboardUrl}`);
  const signal = await stopped;
  io.stdout(`Stopping (${signal})...`);
  await workspace.close();
  return exitCodes.ok;
}
