/**
 * File access the validator needs for the entrypoint and bundling checks. Paths are absolute
 * (`appDir` joined with an app-relative path using `/`). Keeping this injected keeps
 * `@platform/schema` free of `node:` imports; the `platform` CLI passes a Node implementation.
 */
export interface FileHost {
  /** Text of a file; rejects or returns `undefined` when it cannot be read. */
  readFile(path: string): Promise<string | undefined>;
  /**
   * Whether a regular file exists at exactly this path, with the exact letter case of every
   * name (bundling is case-sensitive even where the file system is not).
   */
  exists(path: string): Promise<boolean>;
}
