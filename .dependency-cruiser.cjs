// The import rules CI enforces (`npm run check:imports`): no cycle between files or folders of
// any package's src, and inside the broker, imports that only run down its floors. FLOORS.md
// beside this file describes the floors and what goes on each.

/**
 * The broker's floors, top first; `null` is the features floor, which holds every folder of
 * `src/` that no other floor names. A folder may import its own floor's folders and any below.
 */
const brokerFloors = [
  ['bin\\.ts', 'index\\.ts'],
  ['cli'],
  ['app', 'serve'],
  ['api', 'mcp'],
  null,
  ['feature', 'pages', 'functions', 'secrets', 'http', 'db', 'observability'],
  ['project', 'logs', 'kernel'],
];

const broker = 'packages/broker/src';
const anyOf = (names) => `^${broker}/(${names.join('|')})($|/)`;
const named = brokerFloors.filter(Boolean).flat();
const featuresAt = brokerFloors.indexOf(null);
const above = (index) => brokerFloors.slice(0, index).flat().filter(Boolean);
const below = (index) =>
  brokerFloors
    .slice(index + 1)
    .flat()
    .filter(Boolean);

// A named floor may not import the floors above it, and a floor below the features may import
// nothing but its own floor and those below: so a new folder, a feature, is fenced in at once.
const floorRules = brokerFloors.flatMap((floor, index) => {
  if (index === 0) return [];
  if (floor === null) {
    return [
      {
        name: 'broker-floor-features',
        severity: 'error',
        comment: 'A feature folder may not import the floors above the features.',
        from: { path: `^${broker}/`, pathNot: anyOf(named) },
        to: { path: anyOf(above(index)) },
      },
    ];
  }
  return [
    {
      name: `broker-floor-${floor.join('-')}`,
      severity: 'error',
      comment: `${floor.join(', ')} may not import the floors above them.`,
      from: { path: anyOf(floor) },
      to:
        index > featuresAt
          ? { path: `^${broker}/`, pathNot: anyOf([...floor, ...below(index)]) }
          : { path: anyOf(above(index)) },
    },
  ];
});

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
      name: 'broker-file-outside-floors',
      severity: 'error',
      comment:
        'Every broker file lives in a folder (a floor or a feature); only bin.ts and index.ts sit in src/.',
      from: { path: `^${broker}/[^/]+$`, pathNot: anyOf(brokerFloors[0]) },
      to: {},
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
