import { PlatformError } from '@platform/errors';

/** The service name the CLI's credentials are kept under in the operating system's store. */
export const CREDENTIAL_SERVICE = 'platform';

/** The operating system's protected credential store, as the CLI uses it. */
export interface CredentialStore {
  /** What the store is, for messages (`the Secret Service`, `the macOS Keychain`). */
  readonly name: string;
  /** Keeps `secret` under `account`, replacing what was there. */
  put(account: string, secret: string): Promise<void>;
  /** The secret kept under `account`, if any. */
  get(account: string): Promise<string | undefined>;
  /** Forgets `account`; `false` when nothing was kept under it. */
  delete(account: string): Promise<boolean>;
  /** The accounts kept whose name starts with `prefix`, sorted. */
  accounts(prefix: string): Promise<string[]>;
}

const storeNames: Record<string, string> = {
  linux: 'the Secret Service',
  darwin: 'the macOS Keychain',
  win32: 'the Windows Credential Manager',
};

const unavailable = (message: string) =>
  new PlatformError({ code: 'CREDENTIAL_STORE_UNAVAILABLE', message });

/**
 * Opens the operating system's protected credential store through `@napi-rs/keyring`: the
 * Secret Service on Linux (GNOME Keyring, KWallet), the Keychain on macOS, the Credential
 * Manager on Windows. Where there is none it throws `CREDENTIAL_STORE_UNAVAILABLE` and nothing
 * is written anywhere: the CLI never falls back to a plaintext file. On Linux the Secret
 * Service is probed first, because the binding would otherwise fall back quietly to the
 * kernel's session keyring, which forgets everything at logout.
 *
 * @example
 * ```ts
 * const store = await openCredentialStore();
 * await store.put('app-access-token/todo', token);
 * ```
 */
export async function openCredentialStore(): Promise<CredentialStore> {
  const name = storeNames[process.platform] ?? `the credential store of ${process.platform}`;
  let keyring: typeof import('@napi-rs/keyring');
  try {
    keyring = await import('@napi-rs/keyring');
  } catch {
    throw unavailable(`This platform (${process.platform}) has no credential store binding.`);
  }
  if (process.platform === 'linux') {
    try {
      await keyring.findCredentialsAsync(CREDENTIAL_SERVICE);
    } catch {
      throw unavailable(
        'No Secret Service answers on the session D-Bus: start GNOME Keyring or KWallet (a desktop session does), or run the command where one is. Nothing was stored.',
      );
    }
  }
  const entry = (account: string) => new keyring.AsyncEntry(CREDENTIAL_SERVICE, account);
  return {
    name,
    async put(account, secret) {
      try {
        await entry(account).setPassword(secret);
      } catch (error) {
        throw unavailable(
          `${name} refused to keep the credential (${(error as Error).message}); unlock its default keyring and try again.`,
        );
      }
    },
    async get(account) {
      return (await entry(account).getPassword()) ?? undefined;
    },
    async delete(account) {
      return entry(account).deleteCredential();
    },
    async accounts(prefix) {
      const kept = await keyring.findCredentialsAsync(CREDENTIAL_SERVICE);
      return kept
        .map((one) => one.account)
        .filter((account) => account.startsWith(prefix))
        .sort();
    },
  };
}
