import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';

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

/** One `platform <command>`: a summary for the help text and what it runs. */
export interface Command {
  /** One line for `platform --help`. */
  readonly summary: string;
  /** Usage line(s) for `platform <command> --help`. */
  readonly usage: string;
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
  readonly usage: string;
  /** The command's flags (`--help`/`-h` is added). */
  readonly options: O;
  /**
   * Most positional arguments accepted.
   * @default 0
   */
  readonly maxPositionals?: number;
  /**
   * Runs the command. `usageError(message)` prints the message with the usage and returns the
   * usage exit code.
   */
  run(parsed: ParsedArgs<O>, io: CliIO, usageError: (message: string) => number): Promise<number>;
}

/**
 * A command whose argument parsing, `--help` and usage errors behave like every other
 * command's: unknown flags and too many positionals exit 2 with the usage on stderr.
 */
export function defineCommand<const O extends ParseArgsOptionsConfig>(
  spec: CommandSpec<O>,
): Command {
  const options = {
    ...spec.options,
    help: { type: 'boolean', short: 'h', default: false },
  } as WithHelp<O>;
  return {
    summary: spec.summary,
    usage: spec.usage,
    async run(args, io) {
      const usageError = (message: string) => {
        io.stderr(`platform ${spec.name}: ${message}\n\n${spec.usage}`);
        return exitCodes.usage;
      };
      let parsed: ParsedArgs<O>;
      try {
        parsed = parseArgs({
          args: [...args],
          options,
          allowPositionals: true,
          allowNegative: true,
          strict: true,
        });
      } catch (error) {
        return usageError((error as Error).message);
      }
      // `help` is always among the options, but TypeScript cannot see it through the generic.
      if ((parsed.values as { help?: boolean }).help) {
        io.stdout(spec.usage);
        return exitCodes.ok;
      }
      const max = spec.maxPositionals ?? 0;
      if (parsed.positionals.length > max) {
        return usageError(
          max === 0
            ? 'takes no positional arguments'
            : `expected at most ${max} positional arguments`,
        );
      }
      return spec.run(parsed, io, usageError);
    },
  };
}
