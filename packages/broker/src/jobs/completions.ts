import type { Database } from '../db/database.ts';
import { GroupedWrites } from '../db/grouped-writes.ts';
import { type Completion, completeJobs, completionKey } from './job-claims.ts';

/**
 * Records the attempts of one worker that succeed, writing those that finish while a write is
 * under way together in the next statement ({@link GroupedWrites}): under load, attempts that
 * finish together cost one statement instead of one each (on PGlite every statement takes its
 * turn on its one thread).
 */
export class Completions {
  readonly #writes: GroupedWrites<Completion, boolean>;

  constructor(db: Database) {
    this.#writes = new GroupedWrites(async (batch) => {
      const recorded = await completeJobs(db, batch);
      return batch.map((one) => recorded.has(completionKey(one.id, one.lease.attempt)));
    });
  }

  /** Marks the held attempt `succeeded`; `false` when its lease was lost meanwhile. */
  record(id: string, lease: Completion['lease'], at: Date): Promise<boolean> {
    return this.#writes.add({ id, lease, at });
  }
}
