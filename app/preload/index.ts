// Preload (sandboxed renderer, context isolation): exposes exactly one typed
// object, window.parakeet (ParakeetApi), and nothing of Node or Electron.
// Built to CommonJS (dist/app/preload/index.cjs) because a sandboxed preload
// cannot load ES modules; only `electron` stays external.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import {
  AUDIO_PORT_CHANNEL, EVENT_CHANNEL, EVENT_NAMES, INVOKE_CHANNELS, type AudioPortFrame, type AudioPortMessage, type EventMap,
  type EventName, type InvokeChannel, type ParakeetApi, type Result,
} from '../ipc/contract.js';

type AnyListener = (data: unknown) => void;
/** The renderer-side MessagePort as Electron types it (this project compiles without the DOM lib). */
type RendererPort = IpcRendererEvent['ports'][number];

const listeners = new Map<EventName, Set<AnyListener>>();
const ports = new Map<string, RendererPort>();
/** Frames sent before the session's port arrived (it follows the dictation:start reply closely). */
const early = new Map<string, AudioPortFrame[]>();
const MAX_EARLY_FRAMES = 500;

ipcRenderer.on(EVENT_CHANNEL, (_event: IpcRendererEvent, message: { event: EventName; data: unknown }) => {
  if (message.event === 'dictation:state') {
    const { sessionId, state } = message.data as EventMap['dictation:state'];
    if (state === 'stopped' || state === 'failed') {
      ports.get(sessionId)?.close();
      ports.delete(sessionId);
      early.delete(sessionId);
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
  for (const frame of early.get(message.sessionId) ?? []) port.postMessage(frame);
  early.delete(message.sessionId);
});

const invoke = (channel: InvokeChannel, payload?: unknown): Promise<Result<unknown>> => {
  if (!(INVOKE_CHANNELS as readonly string[]).includes(channel)) {
    return Promise.resolve({ ok: false, error: { code: 'UNKNOWN_CHANNEL', message: `there is no channel ${String(channel)}` } });
  }
  return ipcRenderer.invoke(channel, payload) as Promise<Result<unknown>>;
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
    const port = ports.get(sessionId);
    if (port) {
      port.postMessage(message);
      return;
    }
    const queue = early.get(sessionId) ?? [];
    if (queue.length < MAX_EARLY_FRAMES) queue.push(message);
    early.set(sessionId, queue);
  },
};

contextBridge.exposeInMainWorld('parakeet', api);
