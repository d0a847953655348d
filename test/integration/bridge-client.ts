// A minimal Node client of the web bridge protocol (what renderer/bridge does
// in the browser), for the web-server tests.
import { WebSocket } from 'ws';
import type { EventName, InvokeChannel, Result } from '../../app/ipc/contract.js';
import { BRIDGE_PATH, encodeAudioFrame, type ServerMessage } from '../../app/ipc/web-protocol.js';

export class BridgeClient {
  readonly events: { event: EventName; data: unknown }[] = [];
  private readonly waiting = new Map<number, (result: Result<unknown>) => void>();
  private nextId = 1;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const message = JSON.parse(data.toString()) as ServerMessage;
      if (message.t === 'result') {
        this.waiting.get(message.id)?.(message.result);
        this.waiting.delete(message.id);
      } else {
        this.events.push({ event: message.event, data: message.data });
      }
    });
  }

  static connect(port: number, token: string, headers: Record<string, string> = {}): Promise<BridgeClient> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${BRIDGE_PATH}?token=${encodeURIComponent(token)}`, { headers });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new BridgeClient(ws)));
      ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
      ws.once('error', reject);
    });
  }

  invoke<T = unknown>(channel: InvokeChannel | string, payload?: unknown): Promise<Result<T>> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve as (r: Result<unknown>) => void);
      this.ws.send(JSON.stringify({ t: 'invoke', id, channel, payload }));
    });
  }

  /** Raw text (malformed-message tests); resolves with the result for `id` (-1: the reply to an unreadable message). */
  sendRaw(text: string, id = -1): Promise<Result<unknown>> {
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.ws.send(text);
    });
  }

  sendBinary(data: ArrayBuffer | Uint8Array): void {
    this.ws.send(data);
  }

  sendAudio(sessionNumber: number, frame: Float32Array, startSample?: number): void {
    this.ws.send(encodeAudioFrame(sessionNumber, frame, startSample));
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}
