// Preload (sandboxed renderer, context isolation): exposes exactly one typed
// object, window.parakeet (ParakeetApi), and nothing of Node or Electron.
// Built to CommonJS (dist/app/preload/index.cjs) because a sandboxed preload
// cannot load ES modules; only `electron` stays external.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import {
  AUDIO_PORT_CHANNEL, EVENT_CHANNEL, EVENT_NAMES, INVOKE_CHANNELS, type AudioPortFrame, type AudioPortMessage, type EventMap, type MeetingInfo,
  type EventName, type InvokeChannel, type ParakeetApi, type Result, type SessionInfo,
} from '../ipc/contract.js';

type AnyListener = (data: unknown) => void;
/** The renderer-side MessagePort as Electron types it (this project compiles without the DOM lib). */
type RendererPort = IpcRendererEvent['ports'][number];

const listeners = new Map<EventName, Set<AnyListener>>();
const ports = new Map<string, RendererPort>();
/**
 * dictation:start resolves only once its session's port is here (main posts it with the reply), so the
 * renderer never has a session id without a port and no frame needs a queue of its own in this file: the
 * renderer's capture router holds what is captured while dictation:start is in flight.
 */
const portWaiters = new Map<string, () => void>();
/** How long dictation:start waits for its port (it is posted right before the reply). */
const PORT_WAIT_MS = 5_000;

ipcRenderer.on(EVENT_CHANNEL, (_event: IpcRendererEvent, message: { event: EventName; data: unknown }) => {
  if (message.event === 'dictation:state') {
    const { sessionId, state } = message.data as EventMap['dictation:state'];
    if (state === 'stopped' || state === 'failed') {
      ports.get(sessionId)?.close();
      ports.delete(sessionId);
      portWaiters.get(sessionId)?.();
    }
  }
  for (const listener of listeners.get(message.event) ?? []) {
    try {
      listener(message.data);
    } catch (error) {
      console.error(`parakeet: a ${message.event} listener threw`, error);
    }
  }
});

ipcRenderer.on(AUDIO_PORT_CHANNEL, (event: IpcRendererEvent, message: AudioPortMessage) => {
  const port = event.ports[0];
  if (!port) return;
  ports.set(message.sessionId, port);
  portWaiters.get(message.sessionId)?.();
});

/** Resolves when the session's audio port is here (at once when it came first), or after PORT_WAIT_MS. */
function audioPort(sessionId: string): Promise<void> {
  if (ports.has(sessionId)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      portWaiters.delete(sessionId);
      resolve();
    };
    const timer = setTimeout(() => {
      console.error(`parakeet: no audio port for session ${sessionId}; its audio cannot be sent`);
      done();
    }, PORT_WAIT_MS);
    portWaiters.set(sessionId, done);
  });
}

const invoke = async (channel: InvokeChannel, payload?: unknown): Promise<Result<unknown>> => {
  if (!(INVOKE_CHANNELS as readonly string[]).includes(channel)) {
    return { ok: false, error: { code: 'UNKNOWN_CHANNEL', message: `there is no channel ${String(channel)}` } };
  }
  const result = (await ipcRenderer.invoke(channel, payload)) as Result<unknown>;
  // The session's port is part of starting it.
  if (channel === 'dictation:start' && result.ok) await audioPort((result.value as SessionInfo).sessionId);
  // A meeting's streams likewise (at its start, and when a reloaded page takes it over).
  if ((channel === 'meeting:start' || channel === 'meeting:attach') && result.ok) {
    const info = result.value as MeetingInfo;
    for (const stream of [info.micStreamId, info.othersStreamId]) if (stream) await audioPort(stream);
  }
  return result;
};

const api: ParakeetApi = {
  mode: 'electron',
  invoke: invoke as ParakeetApi['invoke'],
  on(event, listener) {
    if (!(EVENT_NAMES as readonly string[]).includes(event)) throw new Error(`parakeet: unknown event ${String(event)}`);
    let set = listeners.get(event);
    if (!set) {
      set = new Set();
      listeners.set(event, set);
    }
    const l = listener as AnyListener;
    set.add(l);
    return () => {
      set.delete(l);
    };
  },
  sendAudio(sessionId, frame, startSample) {
    const message: AudioPortFrame = startSample === undefined ? { frame } : { frame, startSample };
    // No port: the session has ended (its port closed with it), so the frame has nowhere to go.
    ports.get(sessionId)?.postMessage(message);
  },
};

contextBridge.exposeInMainWorld('parakeet', api);
