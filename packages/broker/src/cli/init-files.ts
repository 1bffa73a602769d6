import { brokerPackage } from '../kernel/broker-package.ts';

/** What {@link starterApp} fills into the files it writes. */
export interface StarterOptions {
  /** The npm package name of the new app (its `package.json` `name`). */
  readonly name: string;
}

// The @platform/* versions the starter depends on: this broker's own version and the SDK copies it
// was released with, so a new app installs exactly what this CLI was tested against.
const sdkVersion = brokerPackage.sdk['@platform/server'];
const versions = {
  '@platform/broker': brokerPackage.version,
  '@platform/browser': brokerPackage.sdk['@platform/browser'],
  '@platform/schema': brokerPackage.sdk['@platform/schema'],
  '@platform/server': sdkVersion,
} as const;

const manifest = `# yaml-language-server: $schema=./node_modules/@platform/schema/manifest.schema.json
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
] as const;

/**
 * The files of a new app, by relative path: a manifest with the editor `$schema` line, one public
 * Function, a migration with a table and its RLS policies, a page that calls the Function with
 * `@platform/browser`, a tsconfig, a `.gitignore` and a `package.json` pinned to this broker's
 * versions.
 */
export function starterApp(
  options: StarterOptions,
): Record<(typeof STARTER_PATHS)[number], string> {
  return {
    'platform.yaml': manifest,
    'functions/hello/index.ts': helloFunction,
    'migrations/001_greetings.sql': migration,
    'public/index.html': page,
    'public/app.ts': pageScript,
    'tsconfig.json': tsconfig,
    '.gitignore': gitignore,
    'package.json': packageFile(options.name),
  };
}
