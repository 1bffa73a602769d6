import type { Database } from '../db/database.ts';
import { type Completion, completeJobs, completionKey } from './job-claims.ts';

interface Waiting extends Completion {
  readonly resolve: (recorded: boolean) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Records the attempts of one worker that succeed, writing those that finish while a write is
 * under way together in the next statement. The first is sent at once, so none waits longer
 * than it would have behind the statement before it; under load, attempts that finish together
 * cost one statement instead of one each (on PGlite every statement takes its turn on its one
 * thread).
 */
export class Completions {
  readonly #db: Database;
  #waiting: Waiting[] = [];
  #writing = false;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Marks the held attempt `succeeded`; `false` when its lease was lost meanwhile. */
  record(id: string, lease: Completion['lease'], at: Date): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ id, lease, at, resolve, reject });
      if (!this.#writing) void this.#write();
    });
  }

  async #write(): Promise<void> {
    this.#writing = true;
    while (this.#waiting.length > 0) {
      const batch = this.#waiting;
      this.#waiting = [];
      try {
        const recorded = await completeJobs(this.#db, batch);
        for (const one of batch)
          one.resolve(recorded.has(completionKey(one.id, one.lease.attempt)));
      } catch (error) {
        for (const one of batch) one.reject(error);
      }
    }
    this.#writing = false;
  }
}
