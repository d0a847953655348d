// Electron adapter for the IPC contract: every invoke channel bound through
// the shared Router (payload validation, Result envelopes), events forwarded
// on the single EVENT_CHANNEL, and one MessageChannelMain per dictation
// session so audio frames never travel through invoke.
import { BrowserWindow, MessageChannelMain, ipcMain, type IpcMainInvokeEvent, type WebContents } from 'electron';
import {
  AUDIO_PORT_CHANNEL, EVENT_CHANNEL, INVOKE_CHANNELS, type AudioPortMessage, type MeetingInfo, type Notice, type Result, type SessionInfo,
} from '../../ipc/contract.js';
import { readPortFrame } from '../renderer-guards.js';
import type { Services } from '../services.js';

export interface IpcOptions {
  /** Is this URL the app's page? (renderer-guards.ts isAppPage: not the overlay, which has no listener) */
  trusted: (url: string | undefined) => boolean;
  /** Start-up notices of the desktop shell itself (e.g. running without the sandbox), sent with the services' own. */
  extraNotices?: Notice[];
}

function clientId(contents: WebContents): string {
  return `window-${contents.id}`;
}

export interface IpcBinding {
  /** Per window: finalize its sessions when it closes or reloads (a meeting records on over a reload); send it the start-up notices once loaded. */
  watch(contents: WebContents): void;
  dispose(): void;
}

export function bindIpc(services: Services, options: IpcOptions): IpcBinding {
  const log = services.log.child('ipc');
  const ports = new Map<string, Electron.MessagePortMain>();

  const openAudioPort = (contents: WebContents, sessionId: string): void => {
    const { port1, port2 } = new MessageChannelMain();
    const owner = clientId(contents);
    port1.on('message', (event) => {
      const frame = readPortFrame(event.data);
      if (!frame) log.warn(`session ${sessionId}: malformed audio message dropped`);
      else if (services.meetings.isMicStream(sessionId)) services.meetings.pushMic(sessionId, frame.frame, owner, frame.startSample);
      else services.sessions.pushAudio(sessionId, frame.frame, owner, frame.startSample);
    });
    port1.start();
    ports.set(sessionId, port1);
    contents.postMessage(AUDIO_PORT_CHANNEL, { sessionId } satisfies AudioPortMessage, [port2]);
  };

  for (const channel of INVOKE_CHANNELS) {
    ipcMain.handle(channel, async (event: IpcMainInvokeEvent, payload: unknown): Promise<Result<unknown>> => {
      // Only our own page may call in (not a frame that navigated elsewhere).
      if (!options.trusted(event.senderFrame?.url)) {
        log.warn(`${channel} refused from ${event.senderFrame?.url ?? 'an unknown frame'}`);
        return { ok: false, error: { code: 'PERMISSION_DENIED', message: 'this page may not use the app API' } };
      }
      const result = await services.router.handle(channel, payload, { clientId: clientId(event.sender) });
      // The port is part of the start: posted before the reply, and the preload resolves the start only once
      // it has it, so no frame ever waits for a port.
      if (channel === 'dictation:start' && result.ok) openAudioPort(event.sender, (result.value as SessionInfo).sessionId);
      // A meeting's client-fed tracks (microphone, loopback system audio) likewise, at its start and when a
      // reloaded page takes it over (the old page's ports died with it).
      if ((channel === 'meeting:start' || channel === 'meeting:attach') && result.ok) {
        const info = result.value as MeetingInfo;
        for (const [id, port] of ports) {
          if (services.meetings.isMicStream(id)) {
            port.close();
            ports.delete(id);
          }
        }
        for (const stream of [info.micStreamId, info.othersStreamId]) if (stream) openAudioPort(event.sender, stream);
      }
      return result;
    });
  }

  const offEvents = services.bus.onAny((event, data) => {
    // A session's port closes with the session.
    // A meeting's microphone port closes with the meeting (its stream id is "s<n>" as well).
    if (event === 'meeting:state' && (data as { state: string }).state === 'stopped') {
      for (const [id, port] of ports) {
        if (services.meetings.isMicStream(id)) {
          port.close();
          ports.delete(id);
        }
      }
    }
    if (event === 'dictation:state') {
      const { sessionId, state } = data as { sessionId: string; state: string };
      if (state === 'stopped' || state === 'failed') {
        ports.get(sessionId)?.close();
        ports.delete(sessionId);
      }
    }
    for (const win of BrowserWindow.getAllWindows()) {
      const contents = win.webContents;
      if (!contents.isDestroyed() && options.trusted(contents.getURL())) contents.send(EVENT_CHANNEL, { event, data });
    }
  });

  const watch = (contents: WebContents): void => {
    const owner = clientId(contents);
    const closed = (): void => {
      void services.sessions.stopOwnedBy(owner);
      void services.meetings.stopOwnedBy(owner);
    };
    // A reload or a renderer crash ends the page's dictation, not its meeting: that records on until the
    // page is back and takes it over (meeting:attach), or the grace time runs out.
    const pageGone = (): void => {
      void services.sessions.stopOwnedBy(owner);
      services.meetings.detachOwner(owner);
    };
    contents.on('destroyed', closed);
    contents.on('render-process-gone', pageGone);
    contents.on('did-start-navigation', (details) => {
      if (details.isMainFrame && !details.isSameDocument) pageGone();
    });
    contents.on('did-finish-load', () => {
      for (const notice of [...services.startupNotices(), ...(options.extraNotices ?? [])]) contents.send(EVENT_CHANNEL, { event: 'notice', data: notice });
    });
  };

  return {
    watch,
    dispose() {
      for (const channel of INVOKE_CHANNELS) ipcMain.removeHandler(channel);
      offEvents();
      for (const port of ports.values()) port.close();
      ports.clear();
    },
  };
}
