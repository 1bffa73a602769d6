/** The hono environment of the broker's HTTP app: what middleware puts on the context. */
export interface BrokerEnv {
  Variables: {
    /** Set by the `requestId` middleware for every request. */
    requestId: string;
  };
}
