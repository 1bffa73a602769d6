// The app both broker benches call: one public Function that answers its input, and the body
// they send it.

/** The echo app's files, by path. */
export const echoApp: Readonly<Record<string, string>> = {
  'platform.yaml': `schemaVersion: 3
runtime:
  sdk:
    version: 2.6.0
visibility: public
functions:
  - name: echo
    entrypoint: functions/echo/index.ts
    access: public
`,
  'functions/echo/index.ts': `import { defineFunction, s } from '@platform/server';
export default defineFunction({
  input: s.object({ text: s.string(), n: s.number(), list: s.array(s.number()) }),
  handler: ({ input }) => input,
});
`,
};

/** Where the browser calls the echo Function. */
export const ECHO_PATH = '/_platform/api/functions/echo';

/** What each call sends. */
export const echoBody = JSON.stringify({ text: 'hello', n: 42, list: [1, 2, 3] });
