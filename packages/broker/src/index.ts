/**
 * `@platform/broker`: the local broker and the `platform` CLI.
 *
 * The public face is small on purpose: run the CLI (`main`), start a broker for one app
 * (`startBroker`) or a whole `platform dev` (`startDev`). Everything else is internal and may
 * change between releases.
 *
 * @packageDocumentation
 */

export type { Broker, BrokerOptions } from './app/start-broker.ts';
export { startBroker } from './app/start-broker.ts';
export type { DevOptions, DevServer } from './app/start-dev.ts';
export { ManifestInvalidError, startDev } from './app/start-dev.ts';
export type { AuthOptions } from './auth/auth-options.ts';
export { main } from './cli/main.ts';
export type { FunctionDeclaration } from './functions/function-deployments.ts';
export type { BrokerJobsOptions } from './jobs/start-jobs.ts';
export type { LogWriter } from './logs/log-sink.ts';
