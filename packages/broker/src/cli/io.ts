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

/** One `platform <command>`: a summary for the help text and what it runs. */
export interface Command {
  /** One line for `platform --help`. */
  readonly summary: string;
  /** Usage line(s) for `platform <command> --help`. */
  readonly usage: string;
  /** Runs the command with the arguments after its name; resolves to the exit code. */
  run(args: readonly string[], io: CliIO): Promise<number>;
}

/** Exit codes of every command: success, failures the input caused, and misuse of the CLI. */
export const exitCodes = { ok: 0, failed: 1, usage: 2 } as const;
