/**
 * The development session `platform dev` runs for each app: one per app, named like the jobs'
 * development namespace (spec 4.4 `sessionId`).
 */
export const DEV_SESSION_ID = 'default';

/** How a slot's operation calls are answered under `platform dev` (Appendix 1). */
export type IntegrationMode = 'fake' | 'live';

/**
 * The development session's integration settings, held in memory for as long as `platform dev`
 * runs (a restart starts fake again): which `account: app` slot of each consumer app calls its
 * provider for real, one at a time, and which connection each provider app's own operation,
 * sync and webhook Functions receive when invoked directly.
 */
export class DevIntegrationModes {
  readonly #live = new Map<string, string>();
  readonly #testConnections = new Map<string, string>();

  /** The mode of `slot` of `appId`: `fake` unless it was switched live. */
  mode(appId: string, slot: string): IntegrationMode {
    return this.#live.get(appId) === slot ? 'live' : 'fake';
  }

  /** The app's live slot, if one is. */
  liveSlot(appId: string): string | undefined {
    return this.#live.get(appId);
  }

  /** Switches `slot` live (any other slot of the app goes back to fake) or back to fake. */
  setMode(appId: string, slot: string, mode: IntegrationMode): void {
    if (mode === 'live') this.#live.set(appId, slot);
    else if (this.#live.get(appId) === slot) this.#live.delete(appId);
  }

  /** The test connection chosen for the provider app `appId`, if any. */
  testConnection(appId: string): string | undefined {
    return this.#testConnections.get(appId);
  }

  /** Chooses the test connection of a provider app, or clears it with `undefined`. */
  setTestConnection(appId: string, connectionId: string | undefined): void {
    if (connectionId === undefined) this.#testConnections.delete(appId);
    else this.#testConnections.set(appId, connectionId);
  }
}
