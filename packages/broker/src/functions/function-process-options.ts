/** How to run one Function bundle. */
export interface FunctionProcessOptions {
  /** The Function's name, for messages and log prefixes. */
  readonly name: string;
  /** The bundled JavaScript file (self-contained ESM). */
  readonly bundlePath: string;
  /** The broker's port on 127.0.0.1, the only other address the Function may reach. */
  readonly brokerPort: number;
  /**
   * Further hosts the Function may reach (`host` or `host:port`), besides the broker.
   * @default none
   */
  readonly allowNet?: readonly string[] | undefined;
  /** How long a start may take before it counts as failed. @default 10000 */
  readonly startTimeoutMs?: number;
  /** Where Deno keeps its own cache (`DENO_DIR`). @default Deno's default */
  readonly denoDir?: string | undefined;
  /**
   * The process's memory limit in megabytes, for its JavaScript heap and its resident memory;
   * past it the process is killed and restarted. @default `PLATFORM_FUNCTION_MEMORY_MB`, else 512
   */
  readonly memoryMb?: number | undefined;
  /**
   * The app folder as a `file:` URL ending in `/`: cut from every line the process prints (and
   * from the error output a failed start reports), so Deno's own reports, such as an error
   * thrown while the module loads, name files as `functions/foo.ts:3:9`. @default none
   */
  readonly appUrl?: string | undefined;
  /**
   * Stops the process once no call has been in flight for this many milliseconds; the next call
   * starts it again, so an app's idle Functions hold no memory. @default never
   */
  readonly idleStopMs?: number | undefined;
  /** Receives every line the process prints (besides the readiness line). */
  readonly onOutput?: (line: string, stream: 'stdout' | 'stderr') => void;
  /** Called when the process exits without being asked to. */
  readonly onCrash?: (info: {
    code: number | null;
    signal: string | null;
    /** The process was stopped for exceeding its memory limit. */
    outOfMemory: boolean;
  }) => void;
}
