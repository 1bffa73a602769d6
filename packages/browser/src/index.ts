/**
 * `@platform/browser`: sign-in state, Function calls and Function streams for an app's
 * frontend. Token state stays private; the SDK refreshes it through the HttpOnly session broker.
 *
 * @packageDocumentation
 */
export { isPlatformError, PlatformError, type PlatformErrorCode } from '@platform/errors';
export { createPlatform, platform } from './create-platform.ts';
export type {
  CallOptions,
  CurrentUser,
  FunctionInput,
  FunctionName,
  FunctionResult,
  FunctionSpec,
  Platform,
  PlatformAuth,
  PlatformFunctions,
  PlatformOptions,
  PlatformStream,
  Register,
  RegisteredFunctions,
} from './types.ts';
