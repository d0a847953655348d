// One job at a time, lowest priority number first, equal priorities in
// arrival order. A running job may be preemptible: a job that arrives with
// `preempts` asks it (once) to stop early, and the lane runs the newcomer
// next. Knows nothing of the engine: the host decides what runs here, what
// preempts what, and what counts as use (onJobStart/onJobEnd).

export interface LaneJobOptions {
  /** This job stops a preemptible job that is running when it arrives. */
  preempts?: boolean;
  /** Called (once) when a job that preempts arrives while this one runs; the job then ends early. */
  preempt?: () => void;
  /** A step of a longer job that yields (LaneJob.step). */
  step?: boolean;
  /** What the job does, in words, when it holds other work up. */
  what?: string;
  /** Passed to onJobStart/onJobEnd (the host: whether the job is a use of the model). */
  use?: boolean;
}

export interface LaneJob {
  readonly priority: number;
  readonly seq: number;
  readonly step: boolean;
  readonly what: string | undefined;
  preempt: (() => void) | undefined;
  run: () => void;
}

export interface PriorityLaneHooks {
  onJobStart?: (use: boolean) => void;
  onJobEnd?: (use: boolean) => void;
}

export class PriorityLane {
  private readonly queue: LaneJob[] = [];
  private current: LaneJob | null = null;
  private seq = 0;

  constructor(private readonly hooks: PriorityLaneHooks = {}) {}

  /** A job runs now. */
  get busy(): boolean {
    return this.current !== null;
  }

  /** The job running now (null when idle). */
  get running(): LaneJob | null {
    return this.current;
  }

  /** Jobs waiting (not the running one). */
  get waiting(): readonly LaneJob[] {
    return this.queue;
  }

  run<T>(priority: number, work: () => Promise<T>, how: LaneJobOptions = {}): Promise<T> {
    const use = how.use ?? true;
    return new Promise<T>((resolve, reject) => {
      const running = this.current;
      if (running?.preempt && how.preempts) {
        const preempt = running.preempt;
        running.preempt = undefined;
        preempt();
      }
      this.queue.push({
        priority,
        seq: this.seq++,
        step: how.step ?? false,
        preempt: how.preempt,
        what: how.what,
        run: () => {
          this.hooks.onJobStart?.(use);
          work()
            .then(resolve, reject)
            .finally(() => {
              this.current = null;
              this.hooks.onJobEnd?.(use);
              this.pump();
            });
        },
      });
      this.queue.sort((a, b) => a.priority - b.priority || a.seq - b.seq);
      this.pump();
    });
  }

  private pump(): void {
    if (this.current) return;
    const next = this.queue.shift();
    if (!next) return;
    this.current = next;
    next.run();
  }
}
