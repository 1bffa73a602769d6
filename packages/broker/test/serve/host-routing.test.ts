// How `platform serve` reads a request's Host and scheme before any route runs.
import { describe, expect, it } from 'vitest';
import { hostName, routeHost, withServiceScheme } from '../../src/serve/host-routing.ts';

describe('host routing of platform serve', () => {
  it('routes the base domain, one label in front of it, and nothing else', () => {
    expect(routeHost(hostName('apps.example.com:443'), 'apps.example.com')).toEqual({
      kind: 'base',
    });
    expect(routeHost(hostName('Todo.Apps.Example.com.'), 'apps.example.com')).toEqual({
      kind: 'app',
      appId: 'todo',
    });
    expect(routeHost('a.todo.apps.example.com', 'apps.example.com')).toEqual({ kind: 'unknown' });
    expect(routeHost('evilapps.example.com', 'apps.example.com')).toEqual({ kind: 'unknown' });
  });

  it('gives a request from the TLS proxy the scheme of {base_url}, body and headers kept', async () => {
    const received = new Request('http://todo.apps.example.com/_platform/auth/password', {
      method: 'POST',
      headers: { origin: 'https://todo.apps.example.com', 'x-forwarded-proto': 'http' },
      body: 'email=a%40b.c',
    });
    const served = withServiceScheme(received, 'https://apps.example.com');
    expect(served.url).toBe('https://todo.apps.example.com/_platform/auth/password');
    expect(served.headers.get('origin')).toBe('https://todo.apps.example.com');
    expect(await served.text()).toBe('email=a%40b.c');
    // Never from a header a client sets: only the service's own base URL decides.
    const plain = withServiceScheme(
      new Request('http://localhost:8080/', { headers: { 'x-forwarded-proto': 'https' } }),
      'http://localhost:8080',
    );
    expect(plain.url).toBe('http://localhost:8080/');
  });
});
