// The host's wire to the engine: it spawns the transport (a process, or the
// core inline), numbers requests and keeps each pending one until its answer,
// sends cancels, and when the engine dies tells which requests were running
// and which of them go again after the restart. Generations: every spawn gets
// a number, and messages and exits of an older transport are ignored. What a
// death means for the model, the device and the user is the host's business.
import type { IpcError } from '../../ipc/contract.js';
import type { Logger } from '../log.js';
import { type EngineOp, type EngineRequest, type EngineResponseMap, type EngineToHost } from '../../engine-process/protocol.js';
import { CodedError } from '../../../types/errors.js';
import type { EngineTransport, ExitInfo, TransportFactory } from './transport.js';

/**
 * Requests not re-run after a death: a model file being checked or an audio file being read may be the
 * very thing that kills the engine, and a re-run would kill it again (and cost another reload). A
 * self-test's device is marked failed by the death itself; the reload goes elsewhere.
 */
const NOT_RETRIED: Partial<Record<EngineOp, string>> = {
  validate: 'while checking this model file; it was not tried again, since the file itself may have caused it',
  fileOpen: 'while reading this file; it was not tried again, since the file itself may have caused it',
  // The job itself reads the file again and goes on when the death was a GPU's (file-job.ts).
  fileWindow: 'while transcribing this file; it was not tried again, since the file itself may have caused it',
  selfTest: 'during the device self-test; the device is marked failed and the test was not run again',
  vadPush: 'the VAD stream ended with the engine; the live session goes on with the energy VAD',
};

export function aborted(): CodedError {
  return new CodedError('ABORTED', 'cancelled');
}

interface Pending {
  id: number;
  request: EngineRequest;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** Re-run once after a crash; a second crash fails it. */
  retried: boolean;
  sent: boolean;
  /** The host's own reload after a restart: never re-sent (the next restart reloads again). */
  internal: boolean;
  onProgress?: (fraction: number) => void;
}

export interface RequestHow {
  signal?: AbortSignal;
  onProgress?: (fraction: number) => void;
  /** Sent even while requests are held back (the host's reload after a restart). */
  internal?: boolean;
}

export interface EngineDeath {
  reason: string;
  /** The requests that were running in the engine when it died. */
  inFlight: EngineRequest[];
  /** An unload was running: the model is gone either way. */
  unloadDied: boolean;
}

export interface EngineRpcEvents {
  /** The engine answered its start: available (with its build) or not (with the reason). */
  ready(message: Extract<EngineToHost, { t: 'ready' }>): void;
  /** The transport could not even be created (no entry file, …). */
  missing(message: string): void;
  /** The engine died; the pending requests are already failed or marked to go again. */
  died(death: EngineDeath): void;
  /** A GPU's first decode in the engine process started or ended (pipeline compilation). */
  preparing(message: Extract<EngineToHost, { t: 'preparing' }>): void;
}

export interface EngineRpcOptions {
  factory: TransportFactory;
  /** The engine's own log lines. */
  engineLog: Logger;
  log: Logger;
  readyTimeoutMs?: number;
}

export class EngineRpc {
  private transport: EngineTransport | null = null;
  private generation = 0;
  private alive = false;
  private readyWaiter: { resolve: () => void; reject: (e: Error) => void } | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** While a restarted engine reloads the model, other requests wait (they would find no model). */
  private holding = false;
  private closed = false;

  constructor(private readonly opts: EngineRpcOptions, private readonly events: EngineRpcEvents) {}

  /** The engine is up and answered `ready` as available. */
  get isAlive(): boolean {
    return this.alive;
  }

  /** A transport exists (running, or starting). */
  get hasTransport(): boolean {
    return this.transport !== null;
  }

  get pid(): number | null {
    return this.alive ? this.transport?.pid ?? null : null;
  }

  /** Starts a transport; resolves at its `ready`, rejects if it dies first. A factory failure resolves after `missing`. */
  spawn(): Promise<void> {
    const generation = ++this.generation;
    this.alive = false;
    const ready = new Promise<void>((resolve, reject) => {
      this.readyWaiter = { resolve, reject };
    });
    const timeout = setTimeout(() => {
      if (generation !== this.generation || this.alive) return;
      this.opts.log.error('engine process did not answer in time; killing it');
      this.transport?.kill();
      this.onExit(generation, { code: null, signal: 'timeout' });
    }, this.opts.readyTimeoutMs ?? 30_000);
    try {
      this.transport = this.opts.factory(
        {
          message: (message) => {
            if (generation === this.generation) this.onMessage(message);
          },
          exit: (info) => this.onExit(generation, info),
        },
        { log: this.opts.engineLog },
      );
    } catch (error) {
      clearTimeout(timeout);
      this.readyWaiter = null;
      this.events.missing((error as Error).message);
      return Promise.resolve();
    }
    return ready.finally(() => clearTimeout(timeout));
  }

  /** Holds requests back (sent by release) until a restarted engine has its model again. */
  hold(): void {
    this.holding = true;
  }

  /** Sends what was held, in order; `rewrite` may change a request first (a load's device). */
  release(rewrite: (request: EngineRequest) => EngineRequest = (r) => r): void {
    this.holding = false;
    for (const p of [...this.pending.values()].sort((a, b) => a.id - b.id)) {
      if (p.sent) continue;
      p.request = rewrite(p.request);
      this.send(p);
    }
  }

  call<O extends EngineOp>(request: Extract<EngineRequest, { op: O }>, how: RequestHow = {}): Promise<EngineResponseMap[O]> {
    if (how.signal?.aborted) return Promise.reject(aborted());
    return new Promise<EngineResponseMap[O]>((resolve, reject) => {
      const id = this.nextId++;
      const pending: Pending = {
        id,
        request,
        resolve: resolve as (value: unknown) => void,
        reject,
        retried: false,
        sent: false,
        internal: how.internal ?? false,
        onProgress: how.onProgress,
      };
      this.pending.set(id, pending);
      const signal = how.signal;
      if (signal) {
        const onAbort = (): void => {
          if (!this.pending.has(id)) return;
          if (pending.sent && this.alive) {
            // The engine stops at its next abort check and answers ABORTED.
            this.transport?.send({ id: this.nextId++, op: 'cancel', target: id });
          } else {
            this.pending.delete(id);
            reject(aborted());
          }
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const cleanup = (): void => signal.removeEventListener('abort', onAbort);
        pending.resolve = (value) => {
          cleanup();
          (resolve as (value: unknown) => void)(value);
        };
        pending.reject = (error) => {
          cleanup();
          reject(error);
        };
      }
      this.send(pending);
    });
  }

  /** Fails every pending request with `error`. */
  rejectAll(error: () => Error): void {
    for (const p of this.pending.values()) p.reject(error());
    this.pending.clear();
  }

  /** Ends the transport on purpose; its exit is not a death. */
  close(): void {
    this.closed = true;
    this.rejectAll(() => new CodedError('ABORTED', 'the app is shutting down'));
    this.generation += 1; // ignore the exit we cause
    this.transport?.kill();
    this.transport = null;
    this.alive = false;
  }

  private send(pending: Pending): void {
    if (!this.alive || !this.transport || (this.holding && !pending.internal)) return; // sent after the (re)start
    pending.sent = true;
    this.transport.send({ ...pending.request, id: pending.id });
  }

  private onMessage(message: EngineToHost): void {
    switch (message.t) {
      case 'ready': {
        this.alive = message.available;
        const waiter = this.readyWaiter;
        this.readyWaiter = null;
        if (!message.available) {
          const error: IpcError = message.error ?? { code: 'ENGINE_MISSING', message: 'engine unavailable' };
          this.rejectAll(() => CodedError.from(error));
        }
        this.events.ready(message);
        waiter?.resolve();
        return;
      }
      case 'result': {
        const pending = this.pending.get(message.id);
        if (!pending) return; // a cancel's own answer, or a request already failed by a crash
        this.pending.delete(message.id);
        if (message.ok) pending.resolve(message.value);
        else pending.reject(CodedError.from(message.error));
        return;
      }
      case 'progress':
        this.pending.get(message.id)?.onProgress?.(message.fraction);
        return;
      case 'log':
        this.opts.engineLog[message.level](message.message);
        return;
      case 'preparing':
        this.events.preparing(message);
        return;
    }
  }

  private onExit(generation: number, info: ExitInfo): void {
    if (generation !== this.generation || this.closed) return;
    this.generation += 1; // the dead transport's late messages and exits are ignored from here on
    this.alive = false;
    this.transport = null;
    const reason = info.signal ? `killed by ${info.signal}` : `exit code ${info.code}`;
    const waiter = this.readyWaiter;
    this.readyWaiter = null;
    const inFlight = [...this.pending.values()].filter((p) => p.sent).map((p) => p.request);
    let unloadDied = false;
    for (const p of [...this.pending.values()]) {
      const op = p.request.op;
      if (op === 'cancel' || op === 'unload') {
        this.pending.delete(p.id);
        if (op === 'unload') unloadDied = true;
        p.resolve(null);
      } else if (p.internal || (p.sent && p.retried)) {
        this.pending.delete(p.id);
        p.reject(new CodedError('ENGINE_CRASHED', `the engine process stopped (${reason}) twice while running this request`));
      } else if (p.sent && NOT_RETRIED[op]) {
        this.pending.delete(p.id);
        p.reject(new CodedError('ENGINE_CRASHED', `the engine process stopped (${reason}) ${NOT_RETRIED[op]}`));
      } else if (p.sent) {
        p.retried = true;
        p.sent = false;
      }
    }
    this.events.died({ reason, inFlight, unloadDied });
    waiter?.reject(new CodedError('ENGINE_CRASHED', `the engine process stopped (${reason}) while starting`));
  }
}
