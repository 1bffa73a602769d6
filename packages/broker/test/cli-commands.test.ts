// The command line itself: suggestions for a mistyped command or flag, help from each command's
// definition, and shell completion scripts that a real bash runs.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { completionScript } from '../src/cli/completion.ts';
import { type CliIO, defineCommand } from '../src/cli/io.ts';
import { commands, main } from '../src/cli/main.ts';

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { stdout: (l) => out.push(l), stderr: (l) => err.push(l), cwd: process.cwd() };
  const code = await main(args, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('the platform command line', () => {
  it('suggests the command meant by a mistyped one', async () => {
    const answer = await cli('outbx');
    expect(answer.code).toBe(2);
    expect(answer.err).toContain("unknown command 'outbx'");
    expect(answer.err).toContain('Did you mean outbox?');
  });

  it('suggests the flag meant by a mistyped one, with the usage', async () => {
    const answer = await cli('jobs', '--limt', '3');
    expect(answer.code).toBe(2);
    expect(answer.err).toContain("platform jobs: unknown option '--limt'");
    expect(answer.err).toContain('Did you mean --limit?');
    expect(answer.err).toContain('Usage: platform jobs');
  });

  it('prints a command help from its definition, by --help and by help <command>', async () => {
    const byFlag = await cli('outbox', '--help');
    expect(byFlag).toMatchObject({ code: 0, out: commands.outbox?.usage });
    expect((await cli('help', 'outbox')).out).toBe(commands.outbox?.usage);
    const all = await cli('--help');
    for (const [name, command] of Object.entries(commands)) {
      const line = all.out.split('\n').find((one) => one.startsWith(`  ${name} `));
      expect(line?.trim()).toMatch(new RegExp(`^${name} +`));
      expect(line?.endsWith(command.summary)).toBe(true);
    }
  });

  it('passes values, repeated flags and negations under the names of the options table', async () => {
    let seen: unknown;
    const probe = defineCommand({
      name: 'probe',
      summary: 'A probe.',
      usage: 'Usage: platform probe',
      options: {
        'smtp-port': { type: 'string' },
        to: { type: 'string', multiple: true },
        watch: { type: 'boolean', default: true },
        json: { type: 'boolean', default: false },
        app: { type: 'string', short: 'a', default: '.' },
      },
      maxPositionals: 1,
      async run(parsed) {
        seen = parsed;
        return 0;
      },
    });
    const io: CliIO = { stdout: () => {}, stderr: () => {}, cwd: '.' };
    const args = ['x', '--smtp-port', '25', '--to', 'a', '--to', 'b', '--no-watch', '-a', 'dir'];
    expect(await probe.run(args, io)).toBe(0);
    expect(seen).toEqual({
      values: {
        help: false,
        'smtp-port': '25',
        to: ['a', 'b'],
        watch: false,
        json: false,
        app: 'dir',
      },
      positionals: ['x'],
    });
    expect(await probe.run(['x', 'y'], io)).toBe(2);
  });

  it('has --json on every command that lists', () => {
    const lists = [
      'access',
      'admins',
      'agent',
      'cron',
      'deployments',
      'integrations',
      'jobs',
      'org',
      'outbox',
    ];
    for (const name of lists) expect(commands[name]?.options, name).toHaveProperty('json');
  });

  it('prints completion scripts; bash completes commands, actions and flags', async () => {
    expect((await cli('completion', 'ksh')).code).toBe(2);
    const script = (await cli('completion', 'bash')).out;
    expect(script).toBe(completionScript('bash', commands).trimEnd());
    const complete = async (...words: string[]) => {
      const { stdout } = await promisify(execFile)('bash', [
        '-c',
        `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _platform; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ]);
      return stdout.trim().split('\n');
    };
    expect(await complete('platform', 'out')).toEqual(['outbox']);
    expect(await complete('platform', 'jobs', '--li')).toEqual(['--limit']);
    expect(await complete('platform', 'dev', '--no-w')).toEqual(['--no-watch']);
    expect(await complete('platform', 'completion', 'f')).toContain('fish');
    const zsh = (await cli('completion', 'zsh')).out;
    expect(zsh).toContain('#compdef platform');
    expect(zsh).toContain("'outbox:List the email captured by the running platform dev.'");
    const fish = (await cli('completion', 'fish')).out;
    expect(fish).toContain("complete -c platform -n '__fish_seen_subcommand_from jobs' -l limit");
  });
});
