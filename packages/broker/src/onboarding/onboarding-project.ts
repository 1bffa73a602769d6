import { PlatformError } from '@platform/errors';
import type { Queryable } from '../db/database.ts';
import type { OnboardingRequest } from './onboarding-requests.ts';

/**
 * What the project of an onboarding request is where the broker runs: the one rule onboarding
 * asks about the app it onboards a person to (spec 5.2). Under `platform dev` the project is the
 * app already served ({@link localProject}): finishing hands its ownership over and the project
 * opens at once. Under `platform serve` no app exists yet: the request holds its app id, finishing
 * makes the person the owner of the app to be, and the project opens after its first deployment
 * (`deployedProject` in `serve/serve-onboarding.ts`).
 */
export interface OnboardingProject {
  /**
   * The app id a request names, checked before anything else; throws why it cannot be one
   * (`APP_NOT_FOUND` for another app than `platform dev`'s, `INVALID_INPUT` for a malformed id).
   */
  appId(asked: string | undefined): string;
  /**
   * Whether an existing account approving a request belongs to the company already, so it
   * skips company setup (in the approval's transaction).
   */
  inCompany(accountId: string, tx: Queryable): Promise<boolean>;
  /** Refuses a new request for `appId` when it is somebody else's (`APP_ID_TAKEN`). */
  requireFree(appId: string, email: string): Promise<void>;
  /**
   * In the agent's finish, in its transaction and before the credential is minted: the project
   * becomes the person's, or the finish is refused and the request stays `ready`.
   */
  claim(request: OnboardingRequest, tx: Queryable): Promise<void>;
  /** After the finish: what else the person gets (the app's ownership, access to it). */
  handOver(request: OnboardingRequest): Promise<void>;
  /**
   * Where the owner launch page opens the finished project (`http` is the page's request), or
   * `undefined` while the page waits (no deployment yet).
   */
  openAt(request: OnboardingRequest, http: Request): Promise<string | undefined>;
  /**
   * The company a person joins at company setup when the service set one up itself (`platform
   * serve`'s organisation): they accept its invitation rather than naming one.
   * @default none: the first person names it
   */
  readonly organisation?: string;
}

/**
 * The project of `platform dev`: the app `appId` this broker serves. A request for another app
 * is `APP_NOT_FOUND`; it is never taken (the app is the project); finishing runs `handOver`
 * (ownership in the organisation's facts, access to the private app); the launch page opens
 * `{app_url}/` as soon as the agent finished.
 */
export function localProject(
  appId: string,
  origin: (http: Request) => string,
  handOver: (request: OnboardingRequest) => Promise<void>,
): OnboardingProject {
  return {
    appId(asked) {
      if (asked !== appId) {
        throw new PlatformError({
          code: 'APP_NOT_FOUND',
          message: `This broker serves the app "${appId}", not "${asked}".`,
          details: { appId: asked ?? '' },
        });
      }
      return appId;
    },
    // An existing account belongs to a company of its own at least: approving is all it needs.
    inCompany: async () => true,
    requireFree: async () => undefined,
    claim: async () => undefined,
    handOver,
    openAt: async (_request, http) => `${origin(http)}/`,
  };
}
