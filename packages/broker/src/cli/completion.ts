import { type Command, defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform completion bash|zsh|fish

Prints a script that completes platform's commands, their actions and flags in the shell, made
from the same definitions as the help. Load it in the shell's start-up file:

  bash   echo 'source <(platform completion bash)' >> ~/.bashrc
  zsh    echo 'source <(platform completion zsh)' >> ~/.zshrc
  fish   platform completion fish > ~/.config/fish/completions/platform.fish

Options:
  -h, --help      Show this help.`;

/** The shells {@link completionScript} writes for. */
export const completionShells = ['bash', 'zsh', 'fish'] as const;
/** One of {@link completionShells}. */
export type CompletionShell = (typeof completionShells)[number];

/** The flags of a command as typed (`--no-watch` for a flag on by default), `--help` last. */
function flagsOf(command: Command): string[] {
  const flags = Object.entries(command.options).map(([name, option]) =>
    option.type === 'boolean' && option.default === true ? `--no-${name}` : `--${name}`,
  );
  return [...flags, '--help'];
}

const single = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

function bash(commands: Readonly<Record<string, Command>>): string {
  const cases = Object.entries(commands).map(([name, command]) => {
    const actions = (command.actions ?? []).join(' ');
    const flags = flagsOf(command).join(' ');
    return `    ${name}) words=${single(flags)}; actions=${single(actions)} ;;`;
  });
  return `# bash completion for platform (platform completion bash)
_platform() {
  local cur=\${COMP_WORDS[COMP_CWORD]} words='' actions=''
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W ${single(`${Object.keys(commands).join(' ')} --help --version`)} -- "$cur"))
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases.join('\n')}
  esac
  if [ "$COMP_CWORD" -eq 2 ] && [ -n "$actions" ]; then words="$actions $words"; fi
  case "$cur" in
    -*) COMPREPLY=($(compgen -W "$words" -- "$cur")) ;;
    *) COMPREPLY=($(compgen -W "$actions" -- "$cur") $(compgen -f -- "$cur")) ;;
  esac
}
complete -F _platform platform
`;
}

function zsh(commands: Readonly<Record<string, Command>>): string {
  const described = Object.entries(commands).map(
    ([name, command]) => `    ${single(`${name}:${command.summary.replaceAll(':', '\\:')}`)}`,
  );
  const cases = Object.entries(commands).map(([name, command]) => {
    const actions = (command.actions ?? []).map(single).join(' ');
    const flags = flagsOf(command).map(single).join(' ');
    return `    ${name}) flags=(${flags}); actions=(${actions}) ;;`;
  });
  return `#compdef platform
# zsh completion for platform (platform completion zsh)
_platform() {
  local -a commands flags actions
  commands=(
${described.join('\n')}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  case $words[2] in
${cases.join('\n')}
  esac
  if [[ $PREFIX == -* ]]; then
    compadd -- $flags
  else
    (( CURRENT == 3 )) && (( $#actions )) && compadd -- $actions
    _files
  fi
}
if (( $+functions[compdef] )); then compdef _platform platform; fi
`;
}

function fish(commands: Readonly<Record<string, Command>>): string {
  const quote = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  const lines = ['# fish completion for platform (platform completion fish)'];
  lines.push(`complete -c platform -n __fish_use_subcommand -l help -d 'Show the help'`);
  lines.push(`complete -c platform -n __fish_use_subcommand -l version -d 'Print the version'`);
  for (const [name, command] of Object.entries(commands)) {
    lines.push(
      `complete -c platform -f -n __fish_use_subcommand -a ${name} -d ${quote(command.summary)}`,
    );
    const when = `'__fish_seen_subcommand_from ${name}'`;
    for (const action of command.actions ?? []) {
      lines.push(`complete -c platform -f -n ${when} -a ${quote(action)}`);
    }
    for (const flag of flagsOf(command)) {
      lines.push(`complete -c platform -n ${when} -l ${flag.slice(2)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The completion script of `shell` for `commands`. */
export function completionScript(
  shell: CompletionShell,
  commands: Readonly<Record<string, Command>>,
): string {
  return { bash, zsh, fish }[shell](commands);
}

/**
 * `platform completion bash|zsh|fish`. The commands are asked for when it runs: the table of
 * commands includes this one.
 */
export function completionCommand(commands: () => Readonly<Record<string, Command>>): Command {
  return defineCommand({
    name: 'completion',
    summary: 'Print the shell completion script (bash, zsh or fish).',
    usage,
    options: {},
    maxPositionals: 1,
    actions: completionShells,
    async run(parsed, io, usageError) {
      const [shell] = parsed.positionals;
      if (!completionShells.includes(shell as CompletionShell)) {
        return usageError('name the shell: bash, zsh or fish');
      }
      io.stdout(completionScript(shell as CompletionShell, commands()).trimEnd());
      return exitCodes.ok;
    },
  });
}
