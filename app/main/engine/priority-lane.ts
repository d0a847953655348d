// Jobs in priority order: lowest priority number first, equal priorities in
// arrival order, and the job at the head of the queue always goes next (a
// job behind it never overtakes it). One job runs at a time, with one
// exception: a `step` (a window of a file job) and a `beside` job (live
// dictation) may run together, since the engine runs them on two states of
// the model. Knows nothing of the engine: the host decides what runs here,
// what may run beside what, and what counts as use (onJobStart/onJobEnd).

export interface LaneJobOptions {
  /** A step of a longer job (a file window): a `beside` job may run while it does. */
  step?: boolean;
  /** May run while a step runs (live dictation, on its own engine state). */
  beside?: boolean;
  /** What the job does, in words, when it holds other work up. */
  what?: string;
  /** Passed to onJobStart/onJobEnd (the host: whether the job is a use of the model). */
  use?: boolean;
}

export interface LaneJob {
  readonly priority: number;
  readonly seq: number;
  readonly step: boolean;
  readonly beside: boolean;
  readonly what: string | undefined;
  run: () => void;
}

export interface PriorityLaneHooks {
  onJobStart?: (use: boolean) => void;
  onJobEnd?: (use: boolean) => void;
}

/** Whether `job` may start while `running` run: nothing runs, or a step and a beside job pair up. */
function fits(job: LaneJob, running: readonly LaneJob[]): boolean {
  if (running.length === 0) return true;
  if (running.length > 1) return false;
  const other = running[0]!;
  return (job.beside && other.step) || (job.step && other.beside);
}

export class PriorityLane {
  private readonly queue: LaneJob[] = [];
  private readonly active: LaneJob[] = [];
  private seq = 0;

  constructor(private readonly hooks: PriorityLaneHooks = {}) {}

  /** A job runs now. */
  get busy(): boolean {
    return this.active.length > 0;
  }

  /** The jobs running now (at most a step and a beside job). */
  get running(): readonly LaneJob[] {
    return this.active;
  }

  /** Jobs waiting (not the running ones). */
  get waiting(): readonly LaneJob[] {
    return this.queue;
  }

  run<T>(priority: number, work: () => Promise<T>, how: LaneJobOptions = {}): Promise<T> {
    const use = how.use ?? true;
    return new Promise<T>((resolve, reject) => {
      const job: LaneJob = {
        priority,
        seq: this.seq++,
        step: how.step ?? false,
        beside: how.beside ?? false,
        what: how.what,
        run: () => {
          this.hooks.onJobStart?.(use);
          work()
            .then(resolve, reject)
            .finally(() => {
              this.active.splice(this.active.indexOf(job), 1);
              this.hooks.onJobEnd?.(use);
              this.pump();
            });
        },
      };
      this.queue.push(job);
      this.queue.sort((a, b) => a.priority - b.priority || a.seq - b.seq);
      this.pump();
    });
  }

  private pump(): void {
    for (let next = this.queue[0]; next && fits(next, this.active); next = this.queue[0]) {
      this.queue.shift();
      this.active.push(next);
      next.run();
    }
  }
}
