import { fileURLToPath } from 'node:url';

// From source this file is src/pages/dashboard/source-file.ts; from the published build it is
// bundled into dist/*.js, and the package still ships `src` beside `dist`.
const srcRoot = new URL(import.meta.url.endsWith('.ts') ? '../../' : '../src/', import.meta.url);

/**
 * The absolute path of `path` under the broker package's `src/`, from the sources and from the
 * published build alike: the dashboard bundles its browser modules from there.
 */
export const brokerSourceFile = (path: string): string => fileURLToPath(new URL(path, srcRoot));
