// Imported by bin.ts before anything else: node: built-ins only, and syntax every Node since 14
// parses, so an old Node reaches the message instead of a stack trace from a dependency.

/** The parts of a version, `22.19.0` → `[22, 19, 0]` (missing parts are 0). */
function parts(version: string): [number, number, number] {
  const [major = 0, minor = 0, patch = 0] = version
    .replace(/^v/, '')
    .split('.')
    .map((n) => Number.parseInt(n, 10) || 0);
  return [major, minor, patch];
}

/**
 * The lowest Node version an `engines.node` range of the form `>=x[.y[.z]]` admits, or
 * `undefined` for any other form.
 */
export function minimumNode(range: string): string | undefined {
  const match = /^\s*>=\s*v?(\d+(?:\.\d+){0,2})\s*$/.exec(range);
  return match?.[1] === undefined ? undefined : parts(match[1]).join('.');
}

/**
 * The message the `platform` CLI prints when `current` (a `process.versions.node`) is older than
 * the `engines.node` range `range` allows, or `undefined` when it is new enough. `execPath` says
 * which `node` ran, so the user sees that their PATH picked an old one.
 */
export function nodeTooOld(current: string, range: string, execPath: string): string | undefined {
  const minimum = minimumNode(range);
  if (minimum === undefined) return undefined;
  const have = parts(current);
  const need = parts(minimum);
  const i = have.findIndex((n, index) => n !== need[index]);
  if (i === -1 || (have[i] as number) > (need[i] as number)) return undefined;
  return [
    `platform needs Node.js ${range.trim()}; this is Node.js ${current} (${execPath}).`,
    'Install a current Node.js LTS from https://nodejs.org/en/download or with a version manager',
    '(nvm install --lts, fnm install --lts, volta install node), then run platform again.',
    'In the platform SDK repository, npx platform and npm run platform -- use the Node that its',
    '`node` devDependency installs.',
  ].join('\n');
}
