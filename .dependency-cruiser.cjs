// The import rules CI enforces (`npm run check:imports`): no cycle between files or folders of
// any package's src, and inside the broker, imports that only run down its floors
// (CONTRIBUTING.md, "Where does a new thing go").

/** The broker's floors, top first. A folder may import its own floor's folders and any below. */
const brokerFloors = [
  ['bin\\.ts', 'index\\.ts'],
  ['cli'],
  ['app'],
  ['api', 'mcp'],
  [
    'auth',
    'jobs',
    'search',
    'data',
    'files',
    'outbox',
    'org',
    'integrations',
    'deletion',
    'onboarding',
  ],
  ['functions', 'secrets', 'http', 'db', 'pages'],
  ['project', 'logs', 'kernel'],
];

const broker = 'packages/broker/src';
const anyOf = (names) => `^${broker}/(${names.join('|')})($|/)`;

const floorRules = brokerFloors.slice(1).map((floor, index) => ({
  name: `broker-floor-${floor.join('-')}`,
  severity: 'error',
  comment: `${floor.join(', ')} may not import the floors above them.`,
  from: { path: anyOf(floor) },
  to: { path: anyOf(brokerFloors.slice(0, index + 1).flat()) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment: 'Folders of a package import each other in a circle.',
      scope: 'folder',
      from: { path: '^packages/[^/]+/src' },
      to: { circular: true },
    },
    {
      name: 'no-file-cycle',
      severity: 'error',
      comment: 'Files import each other in a circle.',
      from: { path: '^packages/[^/]+/src' },
      to: { circular: true },
    },
    {
      name: 'http-imports-no-feature',
      severity: 'error',
      comment: 'http/ is hono plumbing: it knows no feature.',
      from: { path: `^${broker}/http/` },
      to: { path: `^${broker}/(?!http/|kernel/)` },
    },
    ...floorRules,
  ],
  options: {
    includeOnly: '^packages/[^/]+/src/',
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@platform/source', 'import', 'types', 'default'],
      extensions: ['.ts', '.js'],
    },
  },
};
