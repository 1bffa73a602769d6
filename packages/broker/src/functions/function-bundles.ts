import { join } from 'node:path';
import { rememberBundle, reusableBundle } from './bundle-cache.ts';
import { type BundleResult, bundleFunctions } from './bundler.ts';
import type { SdkSource } from './sdk.ts';

/** Where one broker's Functions are bundled. */
export interface BundlePlace {
  /** The app folder; entrypoints are relative to it. */
  readonly appDir: string;
  /** The broker's own folder (`<appDir>/.platform`): bundles go to `functions/`. */
  readonly stateDir: string;
  /** The `@platform/server` copy Functions are bundled with. */
  readonly sdk: SdkSource;
}

/** A Function to bundle: its name names the bundle. */
export interface BundleRequest {
  readonly name: string;
  /** Relative to the app folder. */
  readonly entrypoint: string;
}

/**
 * Each Function's bundle in `<stateDir>/functions/<name>.js`, in the order of `fns`: an earlier
 * bundle when none of its inputs changed (see `reusableBundle`), else a new one, built together
 * with the other changed Functions (see `bundleFunctions`). Each settles on its own; a failure is
 * that Function's `FUNCTION_BUNDLE_FAILED`.
 *
 * @example
 * ```ts
 * const [hello] = bundleDeclared({ appDir, stateDir, sdk }, [{ name: 'hello', entrypoint: 'functions/hello.ts' }]);
 * ```
 */
export function bundleDeclared(
  place: BundlePlace,
  fns: readonly BundleRequest[],
): Promise<BundleResult>[] {
  const { appDir, stateDir, sdk } = place;
  const plans = fns.map((fn) => ({
    target: { entrypoint: fn.entrypoint, outFile: join(stateDir, 'functions', `${fn.name}.js`) },
    key: {
      entrypoint: fn.entrypoint,
      sdkDir: sdk.resolveDir,
      sdkVersion: sdk.version,
      pinned: sdk.pinned ?? sdk.version,
    },
  }));
  const bundles = Promise.all(
    plans.map(({ target, key }) => reusableBundle(key, target.outFile)),
  ).then((reused) => {
    const stale = plans.filter((_, index) => !reused[index]);
    const fresh = bundleFunctions({ appDir, sdk, targets: stale.map(({ target }) => target) });
    return plans.map(
      (plan, index) =>
        reused[index] ??
        (fresh[stale.indexOf(plan)] as Promise<BundleResult>).then(async (bundle) => {
          await rememberBundle(plan.key, bundle);
          return bundle;
        }),
    );
  });
  return plans.map((_, index) =>
    bundles.then((all) => all[index] as BundleResult | Promise<BundleResult>),
  );
}
