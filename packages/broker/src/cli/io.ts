import type { ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { Command as Commander, CommanderError, Option } from 'commander';

/** Where a CLI command writes and which directory it runs in; tests pass their own. */
export interface CliIO {
  /** Writes one line to standard output. */
  readonly stdout: (line: string) => void;
  /** Writes one line to standard error. */
  readonly stderr: (line: string) => void;
  /** Working directory relative paths resolve against. */
  readonly cwd: string;
}

/** The process's own standard streams and working directory. */
export function processIO(): CliIO {
  return {
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
    cwd: process.cwd(),
  };
}

/**
 * Makes the process exit quietly with code 0 once a reader closes its output pipe
 * (`platform outbox | head -1`): what is left to print has no reader, and a stack trace about it
 * would only be noise on the terminal.
 */
export function exitQuietlyWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(exitCodes.ok);
      throw error;
    });
  }
}

/** One `platform <command>`: a summary for the help text, its flags, and what it runs. */
export interface Command {
  /** The word after `platform`. */
  readonly name: string;
  /** One line for `platform --help`. */
  readonly summary: string;
  /** Usage line(s) for `platform <command> --help`. */
  readonly usage: string;
  /** The command's flags (`--help`/`-h` aside), for parsing and shell completion. */
  readonly options: ParseArgsOptionsConfig;
  /** Its first positional words, when they are actions (`list`, `add`): for shell completion. */
  readonly actions?: readonly string[];
  /** Runs the command with the arguments after its name; resolves to the exit code. */
  run(args: readonly string[], io: CliIO): Promise<number>;
}

/**
 * Exit codes of every command: success, failures the input caused, misuse of the CLI, and (for
 * `whoami`) no live sign-in to the service.
 */
export const exitCodes = { ok: 0, failed: 1, usage: 2, signedOut: 3 } as const;

type WithHelp<O extends ParseArgsOptionsConfig> = O & {
  help: { type: 'boolean'; short: 'h'; default: false };
};

/** The parsed arguments of a command defined with {@link defineCommand}. */
export type ParsedArgs<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{
    args: string[];
    options: WithHelp<O>;
    allowPositionals: true;
    allowNegative: true;
    strict: true;
  }>
>;

/** What {@link defineCommand} builds a command from. */
export interface CommandSpec<O extends ParseArgsOptionsConfig> {
  /** The word after `platform`, used in messages. */
  readonly name: string;
  readonly summary: string;
  /** The whole of `platform <name> --help`: usage lines, what it does, its options. */
  readonly usage: string;
  /** The command's flags (`--help`/`-h` is added). */
  readonly options: O;
  /**
   * Most positional arguments accepted.
   * @default 0
   */
  readonly maxPositionals?: number;
  /** Its first positional words, when they are actions (`list`, `add`): completed by the shell. */
  readonly actions?: readonly string[];
  /**
   * Runs the command. `usageError(message)` prints the message with the usage and returns the
   * usage exit code.
   */
  run(parsed: ParsedArgs<O>, io: CliIO, usageError: (message: string) => number): Promise<number>;
}

// How each command made by defineCommand adds itself to a program.
const runnables = new WeakMap<
  Command,
  (program: Commander, io: CliIO, exit: { code: number }) => void
>();

/**
 * Adds `command` to a commander `program`, so that `platform` dispatches, parses and suggests
 * ("did you mean ...") with the same definitions that {@link Command.run} uses alone.
 */
export function attachCommand(
  program: Commander,
  command: Command,
  io: CliIO,
  exit: { code: number },
): void {
  const attach = runnables.get(command);
  if (attach === undefined)
    throw new Error(`platform ${command.name} was not made by defineCommand`);
  attach(program, io, exit);
}

/**
 * A new commander program of the `platform` CLI whose output goes to `io` and whose errors
 * throw rather than exit the process; unknown words get suggestions.
 */
export function newProgram(io: CliIO): Commander {
  return new Commander('platform')
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => io.stdout(text.replace(/\n$/, '')),
      writeErr: (text) => io.stderr(text.replace(/\n$/, '')),
      outputError: (text, write) =>
        write(`platform: ${text.replace(/^error: /, '')}Run platform --help for the commands.\n`),
    });
}

/**
 * Runs `program` on `argv`; resolves to the exit code of the command that ran, `ok` after help
 * or the version, `usage` after an error of the command line (printed already).
 */
export async function runProgram(
  program: Commander,
  argv: readonly string[],
  exit: { code: number },
): Promise<number> {
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exit.code;
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return error.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
  }
}

/** Turns a flag of a `parseArgs` options table into a commander option. */
function optionOf(name: string, spec: ParseArgsOptionsConfig[string]): Option {
  const short = spec.short ? `-${spec.short}, ` : '';
  if (spec.type === 'boolean') {
    // A flag on by default is written as its negation (`--no-watch`).
    const option = new Option(spec.default === true ? `${short}--no-${name}` : `${short}--${name}`);
    return spec.default === true ? option : option.default(spec.default ?? undefined);
  }
  const option = new Option(`${short}--${name} <value>`);
  if (spec.multiple) {
    return option
      .argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value])
      .default(spec.default);
  }
  return spec.default === undefined ? option : option.default(spec.default);
}

/**
 * A command whose argument parsing, `--help` and usage errors behave like every other
 * command's: unknown flags (with a suggestion) and too many positionals exit 2 with the usage on
 * stderr. Parsing is commander's; the command gets the values under the names its options
 * table uses, as `node:util` `parseArgs` would give them.
 */
export function defineCommand<const O extends ParseArgsOptionsConfig>(
  spec: CommandSpec<O>,
): Command {
  const attach = (program: Commander, io: CliIO, exit: { code: number }) => {
    const usageError = (message: string) => {
      io.stderr(`platform ${spec.name}: ${message}\n\n${spec.usage}`);
      return exitCodes.usage;
    };
    const sub = program
      .command(spec.name)
      .summary(spec.summary)
      .argument('[args...]')
      .helpOption('-h, --help')
      .showHelpAfterError(`\n${spec.usage}`)
      .configureOutput({
        writeOut: (text) => io.stdout(text.replace(/\n$/, '')),
        writeErr: (text) => io.stderr(text.replace(/\n$/, '')),
        outputError: (text, write) =>
          write(`platform ${spec.name}: ${text.replace(/^error: /, '')}`),
      });
    // Its help is the command's own text, written once with the command.
    sub.helpInformation = () => `${spec.usage}\n`;
    const names = new Map<string, string>();
    for (const [name, option] of Object.entries(spec.options)) {
      const built = optionOf(name, option);
      names.set(built.attributeName(), name);
      sub.addOption(built);
    }
    sub.action(async (positionals: string[], values: Record<string, unknown>) => {
      const byName: Record<string, unknown> = { help: false };
      for (const [attribute, value] of Object.entries(values)) {
        if (value !== undefined) byName[names.get(attribute) ?? attribute] = value;
      }
      const max = spec.maxPositionals ?? 0;
      if (positionals.length > max) {
        exit.code = usageError(
          max === 0
            ? 'takes no positional arguments'
            : `expected at most ${max} positional arguments`,
        );
        return;
      }
      const parsed = { values: byName, positionals } as unknown as ParsedArgs<O>;
      exit.code = await spec.run(parsed, io, usageError);
    });
  };
  const command: Command = {
    name: spec.name,
    summary: spec.summary,
    usage: spec.usage,
    options: spec.options,
    ...(spec.actions ? { actions: spec.actions } : {}),
    run(args, io) {
      const program = newProgram(io);
      const exit = { code: exitCodes.ok as number };
      attach(program, io, exit);
      return runProgram(program, [spec.name, ...args], exit);
    },
  };
  runnables.set(command, attach);
  return command;
}
