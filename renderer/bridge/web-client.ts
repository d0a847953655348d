// ParakeetApi over the web bridge's WebSocket (app/ipc/web-protocol.ts):
// invokes carry ids and resolve with the server's Result; events fan out to
// listeners that survive reconnects; audio goes as binary frames. Invokes
// made while disconnected wait for the next connection, in order. Audio does
// not: the server finalizes a client's sessions when its socket closes, and
// the next socket is another client that may not feed them, so frames sent
// while disconnected are dropped at once and counted (takeDroppedAudio); the
// dictation controller ends the interrupted session and says how much was lost.
// DOM-free: the socket comes from a factory (browser-socket.ts in the app).
import type {
  EventMap, EventName, InvokeChannel, ParakeetApi, RequestOf, ResponseOf, Result,
} from '../../app/ipc/contract.js';
import { EVENT_NAMES } from '../../app/ipc/contract.js';
import { audioSessionNumber, encodeAudioFrame, encodeUploadChunk, type ClientMessage, type ServerMessage } from '../../app/ipc/web-protocol.js';
import { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
import type { BridgeSocket, SocketFactory } from './socket.js';
import type { ConnectionState } from '../store/types.js';

export interface WebClientOptions {
  /** ws://host:port/bridge?token=… */
  url: string;
  socketFactory: SocketFactory;
  backoff?: BackoffOptions;
  /** An invoke waiting for a connection fails after this long (ms). */
  offlineInvokeTimeoutMs?: number;
  setTimer?: (fn: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

interface Pending {
  channel: InvokeChannel;
  resolve: (result: Result<unknown>) => void;
  timer: unknown;
  sent: boolean;
}

interface Outgoing {
  id: number;
  data: string;
}

/** Audio that could not be sent (the connection was down). */
export interface DroppedAudio {
  frames: number;
  samples: number;
}

const DISCONNECTED = 'DISCONNECTED';

export class WebClient implements ParakeetApi {
  readonly mode = 'web' as const;
  private socket: BridgeSocket | null = null;
  private state: ConnectionState = 'connecting';
  private attempt = 0;
  private reconnectTimer: unknown = null;
  private closed = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private outbox: Outgoing[] = [];
  /** Per session (its audio stream number): frames dropped while disconnected, until taken. */
  private readonly dropped = new Map<number, DroppedAudio>();
  private readonly droppedTotal: DroppedAudio = { frames: 0, samples: 0 };
  private readonly listeners = new Map<EventName, Set<(data: never) => void>>();
  private readonly connectionListeners = new Set<(state: ConnectionState) => void>();
  private readonly opts: Required<Omit<WebClientOptions, 'setTimer' | 'clearTimer'>>;
  private readonly setTimer: (fn: () => void, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;

  constructor(options: WebClientOptions) {
    this.opts = {
      backoff: DEFAULT_BACKOFF,
      offlineInvokeTimeoutMs: 20_000,
      ...options,
    };
    this.setTimer = options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    this.clearTimer = options.clearTimer ?? ((h) => clearTimeout(h as ReturnType<typeof setTimeout>));
    this.connect();
  }

  get connection(): ConnectionState {
    return this.state;
  }

  /** Audio dropped because the connection was down, over the client's life. */
  get audioDropped(): DroppedAudio {
    return { ...this.droppedTotal };
  }

  /** Audio of `sessionId` dropped since the last call (the controller reports it when the session ends). */
  takeDroppedAudio(sessionId: string): DroppedAudio {
    const number = audioSessionNumber(sessionId);
    const dropped = this.dropped.get(number) ?? { frames: 0, samples: 0 };
    this.dropped.delete(number);
    return dropped;
  }

  onConnection(listener: (state: ConnectionState) => void): () => void {
    this.connectionListeners.add(listener);
    return () => this.connectionListeners.delete(listener);
  }

  invoke<C extends InvokeChannel>(
    channel: C,
    ...payload: RequestOf<C> extends void ? [] : [RequestOf<C>]
  ): Promise<Result<ResponseOf<C>>> {
    return this.request(channel, (payload as unknown[])[0]) as Promise<Result<ResponseOf<C>>>;
  }

  on<E extends EventName>(event: E, listener: (data: EventMap[E]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    const fn = listener as (data: never) => void;
    set.add(fn);
    return () => set.delete(fn);
  }

  sendAudio(sessionId: string, frame: Float32Array, startSample?: number): void {
    const number = audioSessionNumber(sessionId);
    if (this.state !== 'connected' || !this.socket) {
      // Queuing is pointless: the session ended with the connection (see the header).
      const entry = this.dropped.get(number) ?? { frames: 0, samples: 0 };
      entry.frames += 1;
      entry.samples += frame.length;
      this.dropped.set(number, entry);
      this.droppedTotal.frames += 1;
      this.droppedTotal.samples += frame.length;
      return;
    }
    this.socket.send(encodeAudioFrame(number, frame, startSample));
  }

  /** Not queued while disconnected: the server drops an upload with its connection (the uploader says so). */
  sendUploadChunk(uploadId: number, offset: number, bytes: ArrayBuffer): boolean {
    if (this.state !== 'connected' || !this.socket) return false;
    this.socket.send(encodeUploadChunk(uploadId, offset, bytes));
    return true;
  }

  /** Stops reconnecting and fails whatever is in flight. */
  close(): void {
    this.closed = true;
    if (this.reconnectTimer !== null) this.clearTimer(this.reconnectTimer);
    this.reconnectTimer = null;
    this.socket?.close();
    this.socket = null;
    for (const id of [...this.pending.keys()]) this.settle(id, disconnected('the client was closed'));
    this.outbox = [];
  }

  // ------------------------------------------------------------ internals

  private request(channel: InvokeChannel, payload: unknown): Promise<Result<unknown>> {
    return new Promise((resolve) => {
      const id = this.nextId++;
      const message: ClientMessage = payload === undefined ? { t: 'invoke', id, channel } : { t: 'invoke', id, channel, payload };
      const data = JSON.stringify(message);
      const entry: Pending = { channel, resolve, timer: null, sent: false };
      this.pending.set(id, entry);
      if (this.state === 'connected' && this.socket && this.outbox.length === 0) {
        entry.sent = true;
        this.socket.send(data);
      } else {
        this.outbox.push({ id, data });
        entry.timer = this.setTimer(
          () => this.settle(id, disconnected(`${channel} could not be sent: no connection to the Parakeet service`)),
          this.opts.offlineInvokeTimeoutMs,
        );
      }
    });
  }

  private connect(): void {
    if (this.closed) return;
    this.reconnectTimer = null;
    let socket: BridgeSocket | null = null;
    const isCurrent = (): boolean => socket !== null && this.socket === socket;
    socket = this.opts.socketFactory(this.opts.url, {
      open: () => {
        if (!isCurrent()) return;
        this.attempt = 0;
        this.setState('connected');
        this.flushOutbox();
      },
      message: (data) => {
        if (isCurrent()) this.receive(data);
      },
      close: () => {
        if (!isCurrent()) return;
        this.socket = null;
        this.connectionLost();
      },
    });
    this.socket = socket;
  }

  private connectionLost(): void {
    // Requests already on the wire may or may not have run: say so instead of guessing.
    for (const [id, p] of this.pending) {
      if (p.sent) this.settle(id, disconnected(`the connection dropped while ${p.channel} was in flight`));
    }
    if (this.closed) return;
    this.setState('disconnected');
    const delay = backoffDelay(this.attempt++, this.opts.backoff);
    this.reconnectTimer = this.setTimer(() => this.connect(), delay);
  }

  private flushOutbox(): void {
    const socket = this.socket;
    if (!socket) return;
    const queue = this.outbox;
    this.outbox = [];
    for (const item of queue) {
      const p = this.pending.get(item.id);
      if (!p) continue; // timed out while offline
      if (p.timer !== null) this.clearTimer(p.timer);
      p.timer = null;
      p.sent = true;
      socket.send(item.data);
    }
  }

  private receive(data: string | ArrayBuffer): void {
    if (typeof data !== 'string') return; // the server sends no binary frames
    let message: ServerMessage;
    try {
      message = JSON.parse(data) as ServerMessage;
    } catch {
      return;
    }
    if (message.t === 'result' && typeof message.id === 'number') {
      this.settle(message.id, isResult(message.result) ? message.result : malformed(message.id));
    } else if (message.t === 'event' && (EVENT_NAMES as readonly string[]).includes(message.event)) {
      for (const listener of this.listeners.get(message.event) ?? []) {
        try {
          (listener as (d: unknown) => void)(message.data);
        } catch (error) {
          // One broken listener must not starve the others.
          console.error(`listener for ${message.event} failed`, error);
        }
      }
    }
  }

  private settle(id: number, result: Result<unknown>): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    if (p.timer !== null) this.clearTimer(p.timer);
    if (!p.sent) {
      const index = this.outbox.findIndex((o) => o.id === id);
      if (index >= 0) this.outbox.splice(index, 1);
    }
    p.resolve(result);
  }

  private setState(state: ConnectionState): void {
    if (state === this.state) return;
    this.state = state;
    for (const listener of this.connectionListeners) listener(state);
  }
}

function disconnected(message: string): Result<never> {
  return { ok: false, error: { code: DISCONNECTED, message } };
}

function malformed(id: number): Result<never> {
  return { ok: false, error: { code: 'INTERNAL', message: `malformed result for request ${id}` } };
}

function isResult(value: unknown): value is Result<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { ok?: unknown; error?: unknown };
  if (v.ok === true) return true;
  if (v.ok !== false || typeof v.error !== 'object' || v.error === null) return false;
  const e = v.error as { code?: unknown; message?: unknown };
  return typeof e.code === 'string' && typeof e.message === 'string';
}

/** The bridge URL for a page served by the web server: same host, token from the #fragment. */
export function bridgeUrlFromLocation(location: { protocol: string; host: string; hash: string }): string | null {
  // Not URLSearchParams: it would turn a '+' of a base64 token into a space.
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!match) return null;
  const token = decodeURIComponent(match[1]);
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/bridge?token=${encodeURIComponent(token)}`;
}
