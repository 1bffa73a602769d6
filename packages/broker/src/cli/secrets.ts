import { OWNER_API_PREFIX } from '../http/paths.ts';
import type { SecretView } from '../serve/app-secrets.ts';
import { failed, send, target } from './deploy.ts';
import { defineCommand, exitCodes } from './io.ts';

const usage = `Usage: platform secrets set <NAME> [--value-stdin] [--to <base_url>] [--app <id>]
       platform secrets list [--to <base_url>] [--app <id>] [--json]
       platform secrets remove <NAME> [--to <base_url>] [--app <id>]

The secrets of an app deployed at a service you signed in to with platform login
(docs/production.md, "Secrets"). Every node of the service reads the same values; a Function
reads a value with ctx.secrets.get(NAME) once platform.yaml declares the name. Values are
write-only: no command prints them back. Under platform dev, secrets are in
.platform/secrets.json of the app folder instead.
  set <NAME>     Sets the value, asked for with the input hidden, or read from standard
                 input with --value-stdin (one trailing newline dropped). Never give a value
                 as an argument: the shell's history would keep it.
  list           Lists the names and when each was last set.
  remove <NAME>  Removes the value; ctx.secrets.get answers null for it from then on.

Options:
  --value-stdin    Read the value from standard input (set).
  --to <base_url>  The service (platform login); may be left out when signed in to one only.
  --app <id>       The app id (default: the id in .platform/app.json, else the folder's name).
  --json           Print the service's answer as JSON.
  -h, --help       Show this help.`;

/** Standard input to its end, less one trailing newline. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** One line typed at the terminal without echoing it; `undefined` when cancelled (Ctrl-C). */
function promptHidden(question: string): Promise<string | undefined> {
  const input = process.stdin;
  process.stderr.write(question);
  input.setRawMode(true);
  input.resume();
  return new Promise((resolve) => {
    let typed = '';
    const done = (value: string | undefined) => {
      input.setRawMode(false);
      input.pause();
      input.off('data', onData);
      process.stderr.write('\n');
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const char of chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return done(typed);
        if (char === '\u0003' || char === '\u0004') return done(undefined);
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    input.on('data', onData);
  });
}

/** `platform secrets set|list|remove`. */
export const secretsCommand = defineCommand({
  name: 'secrets',
  summary: "Set, list and remove a deployed app's secrets at a service (values are write-only).",
  usage,
  options: {
    'value-stdin': { type: 'boolean', default: false },
    to: { type: 'string' },
    app: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
  maxPositionals: 2,
  async run(parsed, io, usageError) {
    const [action, name] = parsed.positionals;
    if (action !== 'set' && action !== 'list' && action !== 'remove') {
      return usageError('say set, list or remove');
    }
    if (action !== 'list' && name === undefined) return usageError(`name the secret to ${action}`);
    if (action === 'list' && name !== undefined) return usageError('list takes no name');
    const label = `secrets ${action}`;
    const where = await target(io, label, parsed.values, io.cwd);
    if (typeof where === 'number') return where;
    const path = `${OWNER_API_PREFIX}/${encodeURIComponent(where.appId)}/secrets`;
    const one = `${path}/${encodeURIComponent(name ?? '')}`;
    if (action === 'list') {
      const answer = await send(where.base, path, { method: 'GET', token: where.token });
      if (!answer.ok) return failed(io, label, answer);
      if (parsed.values.json) {
        io.stdout(JSON.stringify(answer.body, null, 2));
        return exitCodes.ok;
      }
      const { secrets } = answer.body as { secrets: SecretView[] };
      if (secrets.length === 0) io.stdout(`${where.appId} has no secrets set.`);
      for (const each of secrets) io.stdout(`${each.name}  set ${each.updatedAt}`);
      return exitCodes.ok;
    }
    if (action === 'remove') {
      const answer = await send(where.base, one, { method: 'DELETE', token: where.token });
      if (!answer.ok) return failed(io, label, answer);
      if (parsed.values.json) io.stdout(JSON.stringify(answer.body, null, 2));
      else io.stdout(`Removed ${name} from ${where.appId}.`);
      return exitCodes.ok;
    }
    let value: string | undefined;
    if (parsed.values['value-stdin']) value = await readStdin();
    else if (process.stdin.isTTY) value = await promptHidden(`Value of ${name} (hidden): `);
    else {
      return usageError('standard input is not a terminal: pass the value with --value-stdin');
    }
    if (value === undefined) return exitCodes.failed;
    if (value === '') return usageError(`the value of ${name} is empty`);
    const answer = await send(where.base, one, {
      method: 'PUT',
      token: where.token,
      body: JSON.stringify({ value }),
      contentType: 'application/json',
    });
    if (!answer.ok) return failed(io, label, answer);
    if (parsed.values.json) io.stdout(JSON.stringify(answer.body, null, 2));
    else io.stdout(`Set ${name} of ${where.appId}; every node of ${where.base} reads it.`);
    return exitCodes.ok;
  },
});
