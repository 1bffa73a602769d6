/** A parsed `major.minor.patch` version (pre-release tags are ignored). */
export type Version = readonly [major: number, minor: number, patch: number];

/** Parses `2.6.0` (or `2.6.0-beta.1`) into numbers; `undefined` when it is not semver. */
export function parseVersion(text: string): Version | undefined {
  const match = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?$/.exec(text);
  if (match === null) return undefined;
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** Negative when `a < b`, zero when equal, positive when `a > b` (pre-release tags ignored). */
export function compareVersions(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}
