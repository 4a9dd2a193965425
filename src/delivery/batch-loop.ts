/**
 * The loop of the worker's background jobs that work through the database a batch at a time (the sentiment backfill,
 * delivery/sentiment-backfill.ts; the topic tagging, delivery/topic-tagging.ts): one batch, then a pause (short while
 * there is work, `idleMs` once there is none or a batch failed), off the request path. Stopped (the worker's
 * shutdown), it lets the batch in progress finish.
 */

/** The timing of a job's loop as its caller may set it (each job documents its defaults). */
export interface BatchLoopTiming {
  /** Rows per batch. */
  batchSize?: number;
  /** Pause between batches in ms. */
  pauseMs?: number;
  /** Time between looks once there is no work, in ms. */
  idleMs?: number;
  /** The first batch starts after this many ms (after the server has started). */
  startDelayMs?: number;
  /** Rows between two progress lines in the log. */
  logEvery?: number;
}

export interface BatchLoopOptions {
  /** Runs one batch; answers whether work is left (true: the next batch after `pauseMs`, false: after `idleMs`). */
  batch(): Promise<boolean>;
  /** Called when a batch throws (it is tried again after `idleMs`). */
  onError(e: unknown): void;
  pauseMs: number;
  idleMs: number;
  /** The first batch starts after this many ms. */
  startDelayMs: number;
}

/** Starts the loop. `stop()` ends it and resolves once the batch in progress has finished. */
export function startBatchLoop(opts: BatchLoopOptions): { stop(): Promise<void> } {
  let stopped = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const next = async (): Promise<number> => {
    try {
      return (await opts.batch()) ? opts.pauseMs : opts.idleMs;
    } catch (e) {
      opts.onError(e);
      return opts.idleMs;
    }
  };
  const schedule = (ms: number) => {
    timer = setTimeout(() => {
      running = next().then((wait) => {
        running = undefined;
        if (!stopped) schedule(wait);
      });
    }, ms);
    timer.unref();
  };
  schedule(opts.startDelayMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
