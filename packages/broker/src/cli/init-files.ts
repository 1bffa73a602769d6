import { brokerPackage } from '../kernel/broker-package.ts';

/** What {@link starterApp} fills into the files it writes. */
export interface StarterOptions {
  /** The npm package name of the new app (its `package.json` `name`). */
  readonly name: string;
  /**
   * Where the `$schema` line of `platform.yaml` points, relative to the app folder. Default: the
   * copy `npm install` puts into the app's own `node_modules`.
   */
  readonly schemaPath?: string;
  /**
   * The commands that bring the new app up, in order, as the README lists them (they differ
   * inside the SDK repository, where the app needs no `npm install`). Default: `npm install`,
   * then `npx platform dev`, run in the app's folder.
   */
  readonly nextSteps?: readonly string[];
}

/** Where `npm install` puts the editor schema of `platform.yaml`, relative to the app. */
export const INSTALLED_SCHEMA_PATH = './node_modules/@platform/schema/manifest.schema.json';

// The @platform/* versions the starter depends on: this broker's own version and the SDK copies it
// was released with, so a new app installs exactly what this CLI was tested against.
const sdkVersion = brokerPackage.sdk['@platform/server'];
const versions = {
  '@platform/broker': brokerPackage.version,
  '@platform/browser': brokerPackage.sdk['@platform/browser'],
  '@platform/schema': brokerPackage.sdk['@platform/schema'],
  '@platform/server': sdkVersion,
} as const;

const manifest = (schemaPath: string) => `# yaml-language-server: $schema=${schemaPath}
# Everything the app declares: its Functions, who may call them, and more (see the
# platform.yaml reference, docs/manifest.md of the platform SDK).
schemaVersion: 3
runtime:
  sdk:
    version: ${sdkVersion}
visibility: public

functions:
  - name: hello
    entrypoint: functions/hello/index.ts
    access: public
`;

const helloFunction = `import { defineFunction, s } from '@platform/server';

/**
 * Greets \`name\` and returns the greetings the table \`greetings\` lets this caller read
 * (migrations/001_greetings.sql: everyone may read them).
 */
export default defineFunction({
  input: s.object({ name: s.string() }),
  handler: async ({ input, data, user }) => {
    const rows = await data.table<{ text: string }>('greetings').list({ select: ['text'] });
    return {
      message: \`Hello, \${input.name.trim() || 'stranger'}!\`,
      signedIn: user !== null,
      greetings: rows.map((row) => row.text),
    };
  },
});
`;

const migration = `-- Greetings everyone may read; a signed-in user may add one, as themself (row-level security).
create table greetings (
  id uuid primary key default gen_random_uuid(),
  author_id uuid default auth.uid(),
  text text not null check (length(text) between 1 and 200),
  created_at timestamptz not null default now()
);
alter table greetings enable row level security;
create policy greetings_read on greetings for select using (true);
create policy greetings_add on greetings for insert to authenticated
  with check (author_id = auth.uid());

insert into greetings (text) values ('Welcome to your new app.');
`;

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Hello</title>
    <!-- app.js is public/app.ts, bundled by platform dev on request. -->
    <script type="module" src="/app.js"></script>
  </head>
  <body>
    <h1>Hello</h1>
    <form id="hello">
      <input id="name" name="name" placeholder="Your name" maxlength="100" required />
      <button type="submit">Say hello</button>
    </form>
    <p id="message"></p>
    <ul id="greetings"></ul>
  </body>
</html>
`;

const pageScript = `// The page's script: @platform/browser calls the Function \`hello\`, typed from
// functions/hello/index.ts through platform-env.gen.d.ts (\`platform types\` rewrites it).
import { platform } from '@platform/browser';

const $ = (id: string) => document.getElementById(id) as HTMLElement;

$('hello').addEventListener('submit', async (event) => {
  event.preventDefault();
  const name = ($('name') as HTMLInputElement).value;
  const answer = await platform.functions.call('hello', { name });
  $('message').textContent = answer.message;
  $('greetings').replaceChildren(
    ...answer.greetings.map((text) =>
      Object.assign(document.createElement('li'), { textContent: text }),
    ),
  );
});
`;

const tsconfig = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2023',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      noEmit: true,
      strict: true,
      skipLibCheck: true,
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      types: [],
    },
    include: ['functions', 'public', 'platform-env.gen.d.ts'],
  },
  null,
  2,
)}\n`;

const gitignore = `# Written by platform dev: the local database, files and bundles.
.platform/
node_modules/
`;

/** The oldest Node the CLI runs on, as people say it (`>=22.19.0` → `22.19`). */
const nodeFloor = brokerPackage.engines.node.replace(/^>=\s*/, '').replace(/\.0$/, '');

function readme(options: StarterOptions): string {
  return `# ${options.name}

An app for the platform: \`platform.yaml\` declares it, \`functions/\` holds its Functions,
\`migrations/\` its tables and \`public/\` its pages.

## Next steps

Node.js 24 (the current LTS; ${nodeFloor} or newer works) and npm:

\`\`\`sh
${(options.nextSteps ?? ['npm install', 'npx platform dev']).join('\n')}
\`\`\`

\`platform dev\` prints the address of the app (http://localhost:4310 or a free port) and serves
\`public/index.html\`, whose form calls the Function \`hello\`. Edit
\`functions/hello/index.ts\` and the page; \`platform dev\` reloads them. After a change to
\`platform.yaml\` or a Function's input, \`npx platform types\` rewrites \`platform-env.gen.d.ts\`
(\`npx platform types --check\` tells whether it is current) and \`npx tsc\` typechecks the app.
`;
}

// npm (11 and later) runs a dependency's install scripts without a warning only when the app's
// package.json allows them by name. The broker needs two: deno (the Function runtime) and esbuild
// (the page bundler) fetch their platform's binary in theirs.
const allowScripts = { deno: true, esbuild: true } as const;

function packageFile(name: string): string {
  return `${JSON.stringify(
    {
      name,
      private: true,
      type: 'module',
      scripts: {
        dev: 'platform dev',
        validate: 'platform validate',
        types: 'platform types',
        typecheck: 'tsc',
      },
      dependencies: {
        '@platform/browser': versions['@platform/browser'],
        '@platform/server': versions['@platform/server'],
      },
      devDependencies: {
        '@platform/broker': versions['@platform/broker'],
        '@platform/schema': versions['@platform/schema'],
        typescript: '^5.9.3',
      },
      engines: brokerPackage.engines,
      allowScripts,
    },
    null,
    2,
  )}\n`;
}

/** The paths (relative, `/`-separated) `platform init` writes, before the generated types. */
export const STARTER_PATHS = [
  'platform.yaml',
  'functions/hello/index.ts',
  'migrations/001_greetings.sql',
  'public/index.html',
  'public/app.ts',
  'tsconfig.json',
  '.gitignore',
  'package.json',
  'README.md',
] as const;

/**
 * The files of a new app, by relative path: a manifest with the editor `$schema` line, one public
 * Function, a migration with a table and its RLS policies, a page that calls the Function with
 * `@platform/browser`, a tsconfig, a `.gitignore`, a `package.json` pinned to this broker's
 * versions and a README with the next steps.
 */
export function starterApp(
  options: StarterOptions,
): Record<(typeof STARTER_PATHS)[number], string> {
  return {
    'platform.yaml': manifest(options.schemaPath ?? INSTALLED_SCHEMA_PATH),
    'functions/hello/index.ts': helloFunction,
    'migrations/001_greetings.sql': migration,
    'public/index.html': page,
    'public/app.ts': pageScript,
    'tsconfig.json': tsconfig,
    '.gitignore': gitignore,
    'package.json': packageFile(options.name),
    'README.md': readme(options),
  };
}
