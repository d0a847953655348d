// Server side of the web bridge (protocol: app/ipc/web-protocol.ts): one
// authenticated WebSocket per page, invokes routed through the same Router as
// Electron's ipcMain, every bus event broadcast, binary frames fed to the
// caller's own dictation sessions. A client that disconnects has its sessions
// finalized, so what was spoken is not lost with the tab; its meeting records
// on for the page that comes back (meeting:attach).
import type { RawData, WebSocket } from 'ws';
import type { EventMap, EventName } from '../ipc/contract.js';
import { audioSessionNumber, decodeAudioFrame, decodeUploadChunk, isUploadChunk, type ServerMessage } from '../ipc/web-protocol.js';
import type { Services } from '../main/services.js';

/** Events the UI can live without when a client is far behind (the meter, partial text). */
const DROPPABLE: ReadonlySet<EventName> = new Set(['dictation:state', 'models:progress', 'models:importProgress', 'files:progress', 'meeting:state', 'meeting:partial']);
const BACKLOG_LIMIT = 4 * 1024 * 1024;

export class Bridge {
  private readonly clients = new Map<WebSocket, string>();
  private nextClient = 1;
  private readonly offEvents: () => void;
  private readonly offUploads: () => void;

  constructor(private readonly services: Services) {
    this.offEvents = services.bus.onAny((event, data) => this.broadcast(event, data));
    // An upload's acknowledgements go to its own client only (they pace that client's sending).
    const onUpload = (owner: string, progress: EventMap['files:upload']): void => {
      for (const [ws, clientId] of this.clients) if (clientId === owner) this.send(ws, { t: 'event', event: 'files:upload', data: progress });
    };
    this.offUploads = services.uploads.on('progress', onUpload);
  }

  attach(ws: WebSocket): void {
    const clientId = `web-${this.nextClient++}`;
    this.clients.set(ws, clientId);
    const log = this.services.log.child('bridge');
    log.info(`${clientId} connected`);
    // Nothing a client sends may take the server down: a throw or rejection here would be uncaught.
    ws.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) {
        try {
          this.onAudio(clientId, data);
        } catch (error) {
          log.warn(`${clientId}: audio frame refused`, error);
        }
        return;
      }
      this.onText(ws, clientId, data).catch((error: unknown) => {
        log.error(`${clientId}: message failed`, error);
        this.send(ws, { t: 'result', id: -1, result: { ok: false, error: { code: 'INTERNAL', message: 'the message could not be handled' } } });
      });
    });
    ws.on('close', () => {
      this.clients.delete(ws);
      log.info(`${clientId} disconnected`);
      void this.services.sessions.stopOwnedBy(clientId);
      void this.services.uploads.dropOwner(clientId);
      // A meeting outlives its page (a reload, a crash): it records on, and the next page takes it over
      // (meeting:attach); one nobody takes over within the grace time is stopped and kept.
      this.services.meetings.detachOwner(clientId);
    });
    ws.on('error', (error) => log.warn(`${clientId} socket error`, error));
    for (const notice of this.services.startupNotices()) this.send(ws, { t: 'event', event: 'notice', data: notice });
  }

  private send(ws: WebSocket, message: ServerMessage): void {
    if (ws.readyState !== ws.OPEN) return;
    try {
      ws.send(JSON.stringify(message));
    } catch (error) {
      this.services.log.child('bridge').error('could not send a message', error);
    }
  }

  private broadcast<E extends EventName>(event: E, data: EventMap[E]): void {
    if (this.clients.size === 0) return;
    const text = JSON.stringify({ t: 'event', event, data } satisfies ServerMessage);
    for (const ws of this.clients.keys()) {
      if (ws.readyState !== ws.OPEN) continue;
      if (ws.bufferedAmount > BACKLOG_LIMIT && DROPPABLE.has(event)) continue;
      ws.send(text);
    }
  }

  private async onText(ws: WebSocket, clientId: string, data: RawData): Promise<void> {
    let message: unknown;
    try {
      message = JSON.parse(data.toString());
    } catch {
      this.send(ws, { t: 'result', id: -1, result: { ok: false, error: { code: 'INVALID_PAYLOAD', message: 'not JSON' } } });
      return;
    }
    const m = message as { t?: unknown; id?: unknown; channel?: unknown; payload?: unknown } | null;
    const id = typeof m?.id === 'number' && Number.isSafeInteger(m.id) ? m.id : -1;
    if (!m || m.t !== 'invoke' || id < 0) {
      this.send(ws, { t: 'result', id, result: { ok: false, error: { code: 'INVALID_PAYLOAD', message: 'expected {t:"invoke", id, channel, payload}' } } });
      return;
    }
    const result = await this.services.router.handle(m.channel, m.payload, { clientId });
    this.send(ws, { t: 'result', id, result });
  }

  private onAudio(clientId: string, data: RawData): void {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (isUploadChunk(bytes)) {
      let chunk: ReturnType<typeof decodeUploadChunk>;
      try {
        chunk = decodeUploadChunk(bytes);
      } catch (error) {
        this.services.log.child('bridge').warn(`${clientId}: ${(error as Error).message}`);
        return;
      }
      this.services.uploads.chunk(clientId, chunk.uploadId, chunk.offset, chunk.bytes);
      return;
    }
    let frame: ReturnType<typeof decodeAudioFrame>;
    try {
      frame = decodeAudioFrame(bytes);
    } catch (error) {
      this.services.log.child('bridge').warn(`${clientId}: ${(error as Error).message}`);
      return;
    }
    const sessionId = `s${frame.sessionNumber}`;
    // Checked: the number must round-trip to the id the server assigned.
    if (audioSessionNumber(sessionId) !== frame.sessionNumber) return;
    if (this.services.meetings.isMicStream(sessionId)) this.services.meetings.pushMic(sessionId, frame.frame, clientId, frame.startSample);
    else this.services.sessions.pushAudio(sessionId, frame.frame, clientId, frame.startSample);
  }

  close(): void {
    this.offEvents();
    this.offUploads();
    for (const ws of this.clients.keys()) ws.close(1001, 'server shutting down');
  }
}
