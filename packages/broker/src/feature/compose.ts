import type { Hono } from 'hono';
import type { BrokerEnv } from '../http/broker-env.ts';
import type { DashboardSection } from '../pages/dashboard/dashboard-section.ts';
import type {
  AnyFeature,
  BrokerFeature,
  FeatureBase,
  FeatureErasure,
  MountContext,
  MountStage,
} from './broker-feature.ts';

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** What a feature placed above the features it needs is asked to be: nothing can be. */
interface NeedsUnmet<Name extends string, Missing> {
  readonly placedAboveWhatItNeeds: { readonly feature: Name; readonly missing: Missing };
}

/**
 * The features in registry order, each checked against the services started before it: a
 * feature whose `Needs` the earlier ones do not provide must also be a {@link NeedsUnmet},
 * which no feature is, so a misplaced registry line fails to compile and names what it misses.
 */
export type InOrder<
  Features extends readonly AnyFeature[],
  Have = object,
> = Features extends readonly [infer First, ...infer Rest extends readonly AnyFeature[]]
  ? First extends BrokerFeature<infer Name, infer Needs, infer Service>
    ? readonly [
        Have extends Needs ? First : First & NeedsUnmet<Name, Exclude<keyof Needs, keyof Have>>,
        ...InOrder<Rest, Have & Record<Name, Service>>,
      ]
    : never
  : readonly [];

/** The services a registry starts, by feature name. */
export type ServicesOf<Features extends readonly AnyFeature[]> = Simplify<
  InOrderServices<Features, object>
>;

type InOrderServices<Features extends readonly AnyFeature[], Have> = Features extends readonly [
  infer First,
  ...infer Rest extends readonly AnyFeature[],
]
  ? First extends BrokerFeature<infer Name, never, infer Service>
    ? InOrderServices<Rest, Have & Record<Name, Service>>
    : never
  : Have;

/**
 * Declares a registry: the features in the order they start. Returns the list unchanged; its
 * type check is the point (see {@link InOrder}).
 */
export function defineRegistry<const Features extends readonly AnyFeature[]>(
  features: Features & InOrder<Features>,
): Features {
  return features;
}

/** A started registry: each feature beside its service and the needs it was given. */
export interface StartedFeatures<Services> {
  /** The services by feature name. */
  readonly services: Services;
  /** The features' dashboard sections, in registry order. */
  readonly sections: readonly DashboardSection[];
  /** Mounts every feature's routes of one stage, in registry order. */
  mount(app: Hono<BrokerEnv>, stage: MountStage, context: MountContext): void;
}

interface Running {
  readonly feature: RunnableFeature;
  readonly service: unknown;
}

// The registry's features seen from the loop that runs them: any needs, any service.
type RunnableFeature = BrokerFeature<string, Record<string, unknown>, unknown>;

/**
 * Starts the features one after another, each with the services of all before it (its `Needs`
 * are a subset, checked when the registry was declared). A feature that throws stops the start;
 * what earlier ones registered with `base.onClose` is closed by the caller's teardown.
 */
export async function startFeatures<const Features extends readonly AnyFeature[]>(
  features: Features,
  base: FeatureBase,
): Promise<StartedFeatures<ServicesOf<Features>>> {
  const services: Record<string, unknown> = {};
  const running: Running[] = [];
  for (const feature of features as unknown as readonly RunnableFeature[]) {
    if (feature.name in services) throw new Error(`Two features are named ${feature.name}.`);
    const service = await feature.start(base, services);
    services[feature.name] = service;
    running.push({ feature, service });
  }
  return {
    services: services as ServicesOf<Features>,
    sections: dashboardOf(features),
    mount: (app, stage, context) => {
      for (const { feature, service } of running) {
        feature.mount?.[stage]?.(app, service, services, context);
      }
    },
  };
}

/** Each feature's erasure, in registry order (what {@link FeatureBase.erasures} holds). */
export function erasuresOf(features: readonly AnyFeature[]): readonly FeatureErasure[] {
  return features.flatMap((feature) => (feature.erasure ? [feature.erasure] : []));
}

/** The features' dashboard sections, in registry order: the page's order. */
export function dashboardOf(features: readonly AnyFeature[]): readonly DashboardSection[] {
  return features.flatMap((feature) => feature.dashboard ?? []);
}
