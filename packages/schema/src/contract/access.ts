/**
 * Who may call a Function: `functions[].access` in platform.yaml (spec 2.3), in the order the
 * manifest's JSON Schema lists them. `user` needs a signed-in caller, `public` takes any caller
 * (the identity is optional), `system` is never called from a browser or a route, only by the
 * platform (jobs, cron, integrations) and the developer's own tools.
 *
 * @example
 * ```ts
 * functionAccessLevels.includes('public'); // true
 * ```
 */
export const functionAccessLevels = ['user', 'public', 'system'] as const;

/** One of {@link functionAccessLevels}. */
export type FunctionAccess = (typeof functionAccessLevels)[number];
