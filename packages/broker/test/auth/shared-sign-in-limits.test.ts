// Two brokers of one app on one PostgreSQL, as `platform serve` nodes behind a load balancer:
// wrong passwords spread over both meet one limit, not one limit per node; and attempts posted
// at the same moment to both cannot slip past it while earlier ones are still being checked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Broker, startBroker } from '../../src/app/start-broker.ts';
import { testSnapshotPath } from '../helpers/db.ts';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.ts';
import { tempDir } from '../helpers/temp-dir.ts';
import { addAccount, FakeBrowser, MINUTE, TestClock } from './helpers.ts';

const PASSWORD = 'correct horse 1';
let pg: PostgresServer | undefined;
const nodes: Broker[] = [];
const cleanups: (() => Promise<void>)[] = [];
const clock = new TestClock();

async function node(url: string): Promise<Broker> {
  const dir = await tempDir('broker-limits-');
  cleanups.push(dir.remove);
  const broker = await startBroker({
    appDir: dir.path,
    sdkVersion: '2.6.0',
    databaseUrl: url,
    snapshotPath: testSnapshotPath,
    logWriter: () => undefined,
    auth: { appId: 'notes', passwordCost: 10, clock, visibility: 'public' },
  });
  cleanups.push(() => broker.close());
  return broker;
}

beforeAll(async () => {
  pg = await startPostgres();
  const url = await pg.createDatabase('limits');
  // One after the other: the second finds the schema the first applied.
  nodes.push(await node(url));
  nodes.push(await node(url));
  for (const name of ['spread', 'burst'])
    await addAccount(nodes[0] as Broker, `${name}@example.com`, PASSWORD);
}, 120_000);
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  await pg?.stop();
}, 60_000);

describe('sign-in limits on two brokers of one PostgreSQL', { timeout: 120_000 }, () => {
  it("count one address's failures across both: the sixth is refused by either node", async () => {
    const [a, b] = nodes as [Broker, Broker];
    const viaA = FakeBrowser.overHttp(a);
    const viaB = FakeBrowser.overHttp(b);
    for (const browser of [viaA, viaB, viaA, viaB, viaA]) {
      expect((await browser.signInByPassword('spread@example.com', 'wrong password')).status).toBe(
        401,
      );
    }
    // Five failures in all, three on A and two on B: both nodes refuse now, the right password too.
    expect((await viaB.signInByPassword('spread@example.com', PASSWORD)).status).toBe(429);
    expect((await viaA.signInByPassword('spread@example.com', PASSWORD)).status).toBe(429);
    clock.advance(15 * MINUTE + 1000);
    expect((await viaB.signInByPassword('spread@example.com', PASSWORD)).status).toBe(303);
  });

  it('hold against 60 simultaneous wrong passwords split over both: only 5 are checked', async () => {
    const posts = await Promise.all(
      nodes.map(async (broker) => {
        const browser = FakeBrowser.overHttp(broker);
        const csrf = await browser.csrf();
        return Array.from({ length: 30 }, (_, i) =>
          browser.request('/_platform/auth/password', {
            form: { email: 'burst@example.com', password: `wrong guess ${i}`, returnTo: '/', csrf },
          }),
        );
      }),
    );
    const statuses = (await Promise.all(posts.flat())).map((r) => r.status);
    const checked = statuses.filter((s) => s === 401).length;
    const limited = statuses.filter((s) => s === 429).length;
    expect({ checked, limited }).toEqual({ checked: 5, limited: 55 });
  });
});
