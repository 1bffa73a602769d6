/**
 * `@platform/broker`: the local broker and the `platform` CLI.
 *
 * @packageDocumentation
 */

// Issue 7: sign-in, sessions, private admission, grants and app access tokens (docs/auth.md).
export type { Account, AccountState } from './auth/accounts.ts';
export { APP_TOKEN_PREFIX, type AppTokenInfo } from './auth/app-tokens.ts';
export type {
  AppVisibility,
  AuthClock,
  AuthOptions,
  PasswordRateLimit,
} from './auth/auth-options.ts';
export { AuthService, type Identity } from './auth/auth-service.ts';
// The local broker (issue 6): database, data, files, Functions, HTTP.
export {
  type Broker,
  type BrokerOptions,
  type FunctionDeclaration,
  startBroker,
} from './broker.ts';
export { accessCommand } from './cli/access.ts';
export { DEFAULT_DEV_PORT, devCommand } from './cli/dev.ts';
export { invokeCommand } from './cli/invoke.ts';
export { type CliIO, type Command, exitCodes } from './cli/io.ts';
export { commands, main } from './cli/main.ts';
export { nodeFileHost } from './cli/node-host.ts';
export { outboxCommand } from './cli/outbox.ts';
export { tokenCommand } from './cli/token.ts';
export { type ValidateReport, validateApp, validateCommand } from './cli/validate.ts';
export type { DataService, ListOptions, Row } from './data/data-service.ts';
export { bootstrapSql, dbRoles } from './db/bootstrap.ts';
export {
  type Database,
  DatabaseError,
  type Queryable,
  type QueryResult,
  type Transaction,
} from './db/database.ts';
export { applyMigrations, MigrationError, type MigrationReport } from './db/migrations.ts';
export { defaultSnapshotPath, type OpenDatabaseOptions, openDatabase } from './db/open-database.ts';
export { PgliteDatabase, type PgliteDatabaseOptions } from './db/pglite-database.ts';
export { PostgresDatabase } from './db/postgres-database.ts';
export { runAs } from './db/run-as.ts';
export { type DirectInvocation, INVOKE_PATH } from './dev/broker-api.ts';
export {
  type DevOptions,
  type DevServer,
  ManifestInvalidError,
  startDev,
} from './dev/dev-server.ts';
export { type DevState, devStatePath, readDevState } from './dev/dev-state.ts';
export { FRONTEND_DIR, Frontend } from './dev/frontend.ts';
export { type AppRoute, type RouteMatch, RouteTable } from './dev/route-table.ts';
export { FILE_MAX_BYTES, type FileInfo, FileService } from './files/file-service.ts';
export { type BundleDiagnostic, bundleFunction, formatDiagnostics } from './functions/bundler.ts';
export { FunctionProcess, type FunctionProcessOptions } from './functions/function-process.ts';
export { type FunctionAccess, FunctionInvoker } from './functions/invoker.ts';
export { resolveSdk, type SdkSource } from './functions/sdk.ts';
export { type BrokerServices, createBrokerApp } from './http/broker-app.ts';
export { type RunningServer, serveBroker } from './http/serve.ts';
export { anonymousCaller, type Caller, systemCaller, userCaller } from './identity/caller.ts';
export { type LogRecord, LogSink } from './logs/log-sink.ts';
export { type CapturedEmail, Outbox } from './outbox/outbox.ts';
export { sdkSearchDeclarations } from './search/search-options.ts';
export { type SearchPreparation, SearchService } from './search/search-service.ts';
export { SecretStore } from './secrets/secret-store.ts';
