import { afterEach, describe, expect, it, vi } from 'vitest';
import { setup, useMsw } from './helpers.ts';

const server = useMsw();

// A Storage that remembers every write, installed as localStorage and sessionStorage.
class RecordingStorage {
  readonly writes: string[] = [];
  readonly #items = new Map<string, string>();
  get length() {
    return this.#items.size;
  }
  key(index: number) {
    return [...this.#items.keys()][index] ?? null;
  }
  getItem(key: string) {
    return this.#items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.writes.push(`${key}=${value}`);
    this.#items.set(key, value);
  }
  removeItem(key: string) {
    this.#items.delete(key);
  }
  clear() {
    this.#items.clear();
  }
}

afterEach(() => {
  vi.unstubAllGlobals();
});

// Every string reachable from `value` through properties, own or inherited non-native.
function reachableStrings(value: unknown, seen = new Set<unknown>()): string[] {
  if (typeof value === 'string') return [value];
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return [];
  if (seen.has(value)) return [];
  seen.add(value);
  return Reflect.ownKeys(value).flatMap((key) => {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    return descriptor && 'value' in descriptor ? reachableStrings(descriptor.value, seen) : [];
  });
}

describe('token material', () => {
  it('never reaches storage, cookies or any property of the SDK', async () => {
    const local = new RecordingStorage();
    const session = new RecordingStorage();
    const cookies: string[] = [];
    vi.stubGlobal('localStorage', local);
    vi.stubGlobal('sessionStorage', session);
    vi.stubGlobal('document', {
      get cookie() {
        return cookies.join('; ');
      },
      set cookie(value: string) {
        cookies.push(value);
      },
    });
    const { platform, broker } = setup(server, {
      user: { id: 'u1' },
      functions: { echo: (input) => input },
      streams: { s: () => ['a'] },
    });
    expect(await platform.auth.currentUser()).toEqual({ id: 'u1' });
    await platform.functions.call('echo', { a: 1 });
    for await (const _ of platform.functions.stream('s', {})) {
      // drain
    }
    broker.signIn({ id: 'u1' });
    await platform.functions.call('echo', { a: 2 }); // refresh after a rejected token

    const tokens = broker.requests.flatMap((r) => (r.token ? [r.token] : []));
    expect(tokens.length).toBeGreaterThan(0);
    expect(local.writes).toEqual([]);
    expect(session.writes).toEqual([]);
    expect(cookies).toEqual([]);
    const strings = reachableStrings(platform);
    for (const token of tokens) expect(strings.some((s) => s.includes(token))).toBe(false);
    expect(JSON.stringify(platform)).not.toMatch(/mock-token/);
  });
});
