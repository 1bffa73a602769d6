import { join } from 'node:path';
import { Redactor } from '@platform/schema/contract';
import type { Database } from '../db/database.ts';
import type { FeatureBase, FeatureErasure } from '../feature/broker-feature.ts';
import { FunctionDeployments } from '../functions/function-deployments.ts';
import { InvocationTokens } from '../functions/invocation-tokens.ts';
import { FunctionInvoker } from '../functions/invoker.ts';
import { resolveSdk } from '../functions/sdk.ts';
import type { BrokerListener } from '../http/serve.ts';
import { LogSink } from '../logs/log-sink.ts';
import { sdkSearchDeclarations } from '../search/search-options.ts';
import { type SecretSource, SecretStore } from '../secrets/secret-store.ts';
import type { ResolvedBrokerOptions } from './broker-options.ts';
import type { Teardown } from './teardown.ts';

/** The shared parts of a broker, and the Function runner's own pieces beside them. */
export interface BrokerBase extends FeatureBase {
  readonly tokens: InvocationTokens;
  readonly functions: FunctionDeployments;
}

/**
 * Builds what every feature shares: the redactor, log sink and secrets (watched), and the
 * Function runner (invocation tokens, invoker, deployments), each registered with `teardown`.
 */
export async function buildBrokerBase(
  o: ResolvedBrokerOptions,
  parts: {
    readonly stateDir: string;
    readonly db: Database;
    readonly listener: BrokerListener;
    readonly teardown: Teardown;
    readonly erasures: readonly FeatureErasure[];
  },
): Promise<BrokerBase> {
  const { stateDir, listener, teardown } = parts;
  // One redactor for log entries, Function output, Function errors and jobs' stored errors. It
  // follows the secrets (the file, or the central store of a deployed app), and a value once
  // known stays redacted until the broker stops: a Function may still hold a value that was
  // removed since.
  const redactor = new Redactor();
  const known = new Set<string>();
  const redact = (values: Iterable<string>) => {
    for (const value of values) known.add(value);
    redactor.set(known);
  };
  const secrets: SecretSource = o.secrets ?? new SecretStore(join(stateDir, 'secrets.json'));
  secrets.onChange(redact);
  await secrets.values();
  teardown.add(secrets.watch());
  const tokens = new InvocationTokens();
  const brokerUrl = `http://127.0.0.1:${listener.port}`;
  const invoker = new FunctionInvoker({
    tokens,
    brokerUrl,
    sdkVersion: o.sdkVersion,
    environment: o.environment,
    redactor,
    clock: o.clock,
    declared: {
      ...o.declared,
      ...(o.searches.length > 0 ? { searches: sdkSearchDeclarations(o.searches) } : {}),
    },
  });
  const functions = new FunctionDeployments({
    appDir: o.appDir,
    stateDir,
    sdk: resolveSdk(o.appDir, o.sdkVersion),
    brokerPort: listener.port,
    allowNet: o.allowNet,
    idleStopMs: o.functionIdleMs,
    invoker,
    print: o.logWriter,
    redactor,
  });
  teardown.add(() => functions.close());
  return {
    appDir: o.appDir,
    stateDir,
    appId: o.appId,
    db: parts.db,
    central: o.central ?? parts.db,
    organisation: o.central !== undefined && o.central !== parts.db,
    url: listener.url,
    port: listener.port,
    environment: o.environment,
    clock: o.clock,
    print: o.logWriter,
    activity: o.activityWriter ?? (() => undefined),
    logs: new LogSink({ writer: o.logWriter, redactor }),
    secrets,
    redact,
    invoker,
    tokens,
    functions,
    onClose: (step) => teardown.add(step),
    erasures: parts.erasures,
  };
}
