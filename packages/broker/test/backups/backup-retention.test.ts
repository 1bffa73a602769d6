// Which backups the retention keeps, and the erasure after the owner's account is deleted: at
// most 30 days later, however young the newest backup (spec 3.5, 8), with a fake clock.
import { join } from 'node:path';
import { limits } from '@platform/schema';
import { describe, expect, it } from 'vitest';
import { platformSchema } from '../../src/app/platform-schema.ts';
import { BackupService } from '../../src/backups/backup-service.ts';
import { retained } from '../../src/backups/retention.ts';
import { FileService } from '../../src/files/file-service.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { appWithDatabase } from '../helpers/db.ts';

const DAY = 24 * 60 * 60 * 1000;
const now = new Date('2026-03-30T12:00:00Z');
const ago = (ms: number) => ({
  id: `b${ms}`,
  createdAt: new Date(now.getTime() - ms).toISOString(),
});

describe('the retention of backups', () => {
  it('keeps the last day whole, the newest of 7 days and of 4 weeks, and the newest of all', () => {
    // One backup every 6 hours for 60 days.
    const backups = Array.from({ length: 240 }, (_, i) => ago(i * 6 * 60 * 60 * 1000 + 1000));
    const kept = retained(backups, now);
    const ages = backups
      .filter((b) => kept.has(b.id))
      .map((b) => now.getTime() - Date.parse(b.createdAt));
    expect(ages.filter((age) => age < DAY)).toHaveLength(4);
    // Days 1 to 6 keep one each; weeks 1 to 3 one each (week 0's newest is today's).
    expect(kept.size).toBe(4 + 6 + 3);
    expect(Math.max(...ages)).toBeLessThan(4 * 7 * DAY);
  });

  it('keeps the newest even when it is older than every window', () => {
    expect([...retained([ago(90 * DAY), ago(100 * DAY)], now)]).toEqual([`b${90 * DAY}`]);
  });

  it('keeps nothing once the erasure deadline has passed', () => {
    const eraseBy = new Date(now.getTime() - 1);
    expect(retained([ago(1000)], now, undefined, eraseBy).size).toBe(0);
  });
});

describe('backups after the owner’s account is deleted', () => {
  it('are erased with the bytes only they held within 30 days, and no more are taken', async () => {
    const app = await appWithDatabase({}, { inMemory: true });
    try {
      const files = new FileService(app.db, join(app.appDir, 'files'));
      const clock = new ManualClock('2026-03-01T00:00:00Z');
      const backups = new BackupService({
        appId: 'notes',
        db: app.db,
        store: files.store,
        stateDir: join(app.appDir, '.platform'),
        platformSchema,
        clock,
        // Kept for 8 weeks normally: longer than the 30 days the erasure allows.
        retention: { daily: 7, weekly: 8 },
      });
      const file = await files.upload(
        { kind: 'system' },
        {
          data: Buffer.from('photo'),
          name: 'p.jpg',
          contentType: 'image/jpeg',
        },
      );
      await backups.create('manual');
      clock.advance(DAY);
      await backups.tick();
      expect(await backups.list()).toHaveLength(2);
      await files.remove({ kind: 'system' }, file.ref);

      await backups.eraseLater();
      await expect(backups.create('manual')).rejects.toMatchObject({ code: 'APP_DELETED' });
      clock.advance(limits.backups.erasureMaxSeconds * 1000 - 2 * DAY);
      await backups.tick();
      // Within the 30 days the retention still keeps the newest of its week.
      const left = await backups.list();
      expect(left.length).toBeGreaterThan(0);
      const held = await files.store.get(file.ref, 1);
      expect(held).toBeDefined();
      held?.destroy();

      clock.advance(2 * DAY);
      await backups.tick();
      expect(await backups.list()).toEqual([]);
      expect(await files.store.get(file.ref, 1)).toBeUndefined();
    } finally {
      await app.cleanup();
    }
  }, 60_000);
});
