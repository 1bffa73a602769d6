/** An agent acting with its own credential (never a browser session), for one account. */
export interface AgentActor {
  readonly accountId: string;
  readonly credentialId: string;
  /** Whether the account owns the app: an exact-app owner agent (spec 5.4). */
  readonly owns: boolean;
}

/** The hono environment of the broker's HTTP app: what middleware puts on the context. */
export interface BrokerEnv {
  Variables: {
    /** Set by the `requestId` middleware for every request. */
    requestId: string;
    /** Set by control-plane admission for a request made with an agent credential. */
    agent?: AgentActor;
    /**
     * Set by control-plane admission for a request of the app console: the confirmed owner's
     * session or the developer cookie, and for a state change also the browser's form token.
     */
    console?: true;
    /**
     * Set with `console` when the owner's own session admitted the request: their account id.
     * A change made there acts as that person only (`actingAs` names no one else); the
     * developer's cookie, like the dev token, leaves it unset.
     */
    consoleAccount?: string;
  };
}
