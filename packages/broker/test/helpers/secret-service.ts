import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { tempDir } from './temp-dir.ts';

/** A private session D-Bus with GNOME Keyring answering as the Secret Service. */
export interface SecretService {
  /** The environment a process needs to reach it (its own HOME and D-Bus address). */
  readonly env: NodeJS.ProcessEnv;
  /** The home folder the keyring keeps its files in. */
  readonly home: string;
  /** `secret-tool lookup` of an item the CLI kept (service `platform`). */
  lookup(account: string): Promise<string | undefined>;
  stop(): Promise<void>;
}

const firstLine = async (child: ChildProcess): Promise<string> => {
  if (!child.stdout) throw new Error('no stdout');
  for await (const line of createInterface({ input: child.stdout })) return line;
  throw new Error('the process printed nothing');
};

/**
 * Starts `dbus-daemon --session` and `gnome-keyring-daemon` (Debian's packages, installed by
 * scripts/setup-system.sh) in a fresh home, the login keyring created and unlocked, so what a
 * process stores through the Secret Service API really goes through a keyring daemon.
 */
export async function startSecretService(): Promise<SecretService> {
  const dir = await tempDir('secret-service-');
  const home = join(dir.path, 'home');
  const runtime = join(dir.path, 'run');
  await mkdir(home);
  await mkdir(runtime, { mode: 0o700 });
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const address = await firstLine(bus);
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
    DBUS_SESSION_BUS_ADDRESS: address,
  };
  // It forks and its first process exits once the daemon answers on the bus; the daemon
  // leaves with the bus.
  const keyring = spawn('gnome-keyring-daemon', ['--unlock', '--components=secrets'], {
    env,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  keyring.stdin?.end('keyring password');
  const [code] = await once(keyring, 'exit');
  if (code !== 0) throw new Error(`gnome-keyring-daemon exited with ${code}`);
  const run = promisify(execFile);
  return {
    env,
    home,
    async lookup(account) {
      try {
        const { stdout } = await run(
          'secret-tool',
          ['lookup', 'service', 'platform', 'username', account],
          { env },
        );
        return stdout === '' ? undefined : stdout;
      } catch {
        return undefined;
      }
    },
    async stop() {
      if (bus.exitCode === null) {
        bus.kill();
        await once(bus, 'exit');
      }
      await dir.remove();
    },
  };
}
