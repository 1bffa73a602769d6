import { PlatformError } from '@platform/errors';
import type { DataService } from '../data/data-service.ts';
import { quoteIdent } from '../data/sql.ts';
import type { Database } from '../db/database.ts';
import type { BrokerFeature } from '../feature/broker-feature.ts';
import { eraseRows } from '../feature/erase-rows.ts';
import type { LogWriter } from '../logs/log-sink.ts';
import { RealtimeBus } from './realtime-bus.ts';
import { RealtimeHub, type RealtimeSettings } from './realtime-hub.ts';
import { mountRealtimeRoutes } from './realtime-routes.ts';

/** Realtime as the rest of the broker sees it: the hub, or why there is none. */
export interface Realtime {
  /** The hub; `undefined` when the database cannot carry messages between brokers. */
  readonly hub: RealtimeHub | undefined;
  /** `ctx.realtime.broadcast`: `FEATURE_NOT_AVAILABLE` without a hub. */
  broadcast(channel: string, event: string, payload: unknown): Promise<{ seq: number }>;
}

const TRIGGER = 'platform_realtime';

/**
 * Puts the capture trigger on each table of `realtime.tables` and takes it off the tables no
 * longer listed, in one transaction that brokers sharing the database take in turn. A listed
 * table that does not exist yet (its migration is still to come) is named, not fatal.
 */
async function installTriggers(
  db: Database,
  data: DataService,
  tables: readonly string[],
  print: LogWriter,
): Promise<void> {
  const present: string[] = [];
  for (const table of tables) {
    try {
      await data.catalog.get(table);
      present.push(table);
    } catch {
      print(
        `realtime: table "${table}" of realtime.tables does not exist with an id column; its changes are not streamed.`,
      );
    }
  }
  await db.transaction(async (tx) => {
    await tx.lock('realtime-triggers');
    const { rows } = await tx.query<{ table: string }>(
      `SELECT c.relname AS table FROM pg_catalog.pg_trigger t
         JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
         JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
        WHERE t.tgname = $1`,
      [TRIGGER],
    );
    for (const { table } of rows) {
      if (!present.includes(table)) {
        await tx.exec(`DROP TRIGGER ${TRIGGER} ON public.${quoteIdent(table)}`);
      }
    }
    for (const table of present) {
      if (rows.some((row) => row.table === table)) continue;
      await tx.exec(
        `CREATE TRIGGER ${TRIGGER} AFTER INSERT OR UPDATE OR DELETE ON public.${quoteIdent(table)}
           FOR EACH ROW EXECUTE FUNCTION platform.realtime_capture()`,
      );
    }
  });
}

/**
 * Realtime (docs/realtime.md): broadcast, presence and database changes on named channels over
 * one WebSocket, carried between the brokers of one database by `LISTEN`/`NOTIFY`. Its routes
 * come after sign-in's admission.
 */
export function realtimeFeature(
  settings: RealtimeSettings,
): BrokerFeature<'realtime', { data: DataService }, Realtime> {
  return {
    name: 'realtime',
    start: async (base, { data }) => {
      await installTriggers(base.db, data, settings.tables, base.print);
      let hub: RealtimeHub | undefined;
      const bus = await RealtimeBus.start(base.db, (message) => hub?.deliver(message));
      if (bus) {
        hub = new RealtimeHub(base.db, data, bus, settings);
        hub.startTimers();
        const started = hub;
        base.onClose(async () => {
          await started.close();
          await bus.close();
        });
      }
      return {
        hub,
        broadcast: (channel, event, payload) => {
          if (!hub) {
            return Promise.reject(
              new PlatformError({
                code: 'FEATURE_NOT_AVAILABLE',
                message: 'Realtime is not available: this database cannot carry notifications.',
              }),
            );
          }
          return hub.broadcastFromFunction(channel, event, payload as never);
        },
      };
    },
    mount: {
      routes: (app, realtime, _needs, { authenticate }) => {
        if (realtime.hub) mountRealtimeRoutes(app, { hub: realtime.hub, authenticate });
      },
    },
    erasure: {
      // Presence names the person; recent messages may name them as sender or in a payload.
      appPerson: async (tx, { accountId, email }) => {
        await eraseRows(tx, 'realtime_presence', 'user_id = $1', [accountId]);
        await eraseRows(
          tx,
          'realtime_messages',
          'strpos(body::text, $1) > 0 OR strpos(lower(body::text), $2) > 0',
          [accountId, email],
        );
      },
    },
  };
}
