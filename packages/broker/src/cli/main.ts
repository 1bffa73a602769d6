import { brokerPackage } from '../kernel/broker-package.ts';
import { accessCommand } from './access.ts';
import { adminsCommand } from './admins.ts';
import { agentCommand } from './agent.ts';
import { appCommand } from './app.ts';
import { backupsCommand } from './backups.ts';
import { completionCommand } from './completion.ts';
import { cronCommand } from './cron.ts';
import { deployCommand, deploymentsCommand, rollbackCommand } from './deploy.ts';
import { devCommand } from './dev.ts';
import { domainsCommand } from './domains.ts';
import { initCommand } from './init.ts';
import { integrationsCommand } from './integrations.ts';
import { invokeCommand } from './invoke.ts';
import {
  attachCommand,
  type CliIO,
  type Command,
  exitCodes,
  newProgram,
  processIO,
  runProgram,
} from './io.ts';
import { jobsCommand } from './jobs.ts';
import { loginCommand, logoutCommand, whoamiCommand } from './login.ts';
import { mailCommand } from './mail.ts';
import { mcpCommand } from './mcp.ts';
import { orgCommand } from './org.ts';
import { outboxCommand } from './outbox.ts';
import { secretsCommand } from './secrets.ts';
import { serveCommand } from './serve.ts';
import { typesCommand } from './types.ts';
import { validateCommand } from './validate.ts';
import { verifyCommand } from './verify.ts';

/**
 * Every `platform <command>`. Adding a command is one entry here plus its own file in `cli/`.
 */
export const commands: Readonly<Record<string, Command>> = {
  access: accessCommand,
  admins: adminsCommand,
  agent: agentCommand,
  app: appCommand,
  backups: backupsCommand,
  completion: completionCommand(() => commands),
  cron: cronCommand,
  deploy: deployCommand,
  deployments: deploymentsCommand,
  domains: domainsCommand,
  dev: devCommand,
  init: initCommand,
  integrations: integrationsCommand,
  invoke: invokeCommand,
  jobs: jobsCommand,
  login: loginCommand,
  logout: logoutCommand,
  mail: mailCommand,
  mcp: mcpCommand,
  org: orgCommand,
  outbox: outboxCommand,
  rollback: rollbackCommand,
  secrets: secretsCommand,
  serve: serveCommand,
  types: typesCommand,
  validate: validateCommand,
  verify: verifyCommand,
  whoami: whoamiCommand,
};

/** `platform --help`: every command with its summary, from the commands' own definitions. */
function help(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  const lines = Object.entries(commands).map(
    ([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`,
  );
  return `Usage: platform <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun platform <command> --help for its options. platform --version prints the version.`;
}

/**
 * Runs the `platform` CLI with `argv` (the arguments after the program name) and resolves to the
 * exit code. Tests call it in-process with their own {@link CliIO}. Dispatch, flag parsing and
 * the suggestions for a mistyped command or flag are commander's.
 *
 * @example
 * ```ts
 * const code = await main(['validate', 'examples/todo', '--json']);
 * ```
 */
export async function main(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  if (argv.length === 0) {
    io.stderr(help());
    return exitCodes.usage;
  }
  const program = newProgram(io)
    .version(brokerPackage.version, '-v, --version')
    .usage('<command> [options]');
  program.helpInformation = () => `${help()}\n`;
  const exit = { code: exitCodes.ok as number };
  for (const command of Object.values(commands)) attachCommand(program, command, io, exit);
  return runProgram(program, argv, exit);
}
