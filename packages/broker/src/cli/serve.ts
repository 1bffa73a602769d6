import { loadServeSettings, settingNames } from '../serve/serve-settings.ts';
import type { RunningService } from '../serve/start-serve.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform serve [--config <file>]

Runs the platform as a long-running service (docs/production.md): the central store on a
PostgreSQL server, {base_url} on the base domain, apps at <app>.<base domain>, routed by Host.
Settings come from environment variables, else from the config file (JSON, or YAML by its
.yaml/.yml ending, keys as below), else their defaults; each is checked at start.

Settings (config key, environment variable):
${settingNames.map((name) => `  ${name.key.padEnd(18)} ${name.env}`).join('\n')}

Standard output carries JSON log lines; the first start's setup link goes to standard error.
Stops on SIGTERM or SIGINT after the requests in flight finish (up to PLATFORM_DRAIN_SECONDS).

Options:
  --config <file>  A config file of settings (environment variables override it).
  -h, --help       Show this help.`;

/** Resolves on the first SIGINT or SIGTERM; a second one exits at once. */
function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      const force = () => process.exit(exitCodes.failed);
      process.once('SIGINT', force);
      process.once('SIGTERM', force);
      resolve(signal);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/** `platform serve`: the service, until SIGTERM. */
export const serveCommand = defineCommand({
  name: 'serve',
  summary: 'Run the platform as a service for deployed apps (PLATFORM_DATABASE_URL, ...).',
  usage,
  options: { config: { type: 'string' } },
  async run(parsed, io) {
    const result = await loadServeSettings({
      env: process.env,
      configFile: parsed.values.config,
      cwd: io.cwd,
    });
    if (!result.ok) {
      for (const problem of result.problems) io.stderr(`platform serve: ${problem}`);
      return exitCodes.usage;
    }
    let service: RunningService;
    try {
      // Loaded here: the service's server and database stay out of every other command's start.
      const { startServe } = await import('../serve/start-serve.ts');
      service = await startServe({ settings: result.settings, announce: io.stderr });
    } catch (error) {
      io.stderr(`platform serve: could not start: ${describe(error)}`);
      return exitCodes.failed;
    }
    await stopSignal();
    const { unfinished } = await service.drain();
    return unfinished === 0 ? exitCodes.ok : exitCodes.failed;
  },
});

/** A start failure in one line, without a stack and without the database URL's password. */
function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/(postgres(?:ql)?:\/\/[^:/@\s]*:)[^@\s]*@/g, '$1***@');
}
