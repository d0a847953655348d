// Start-up wiring: find window.parakeet (Electron preload) or build it from
// the web bridge (web mode, token in the URL fragment), then subscribe once
// to every event and route it to a store action.
import type { ParakeetApi } from '../app/ipc/contract.js';
import { dictation } from './audio/dictation.js';
import { meeting } from './meeting/meeting.js';
import { browserSocketFactory } from './bridge/browser-socket.js';
import { bridgeUrlFromLocation, WebClient } from './bridge/web-client.js';
import * as actions from './store/actions.js';
import { setApi } from './store/api.js';
import { historyChanged, loadAll, sendPendingFileCancel } from './store/commands.js';

declare global {
  interface Window {
    parakeet?: ParakeetApi;
  }
}

function subscribe(parakeet: ParakeetApi): void {
  parakeet.on('engine:status', actions.engineStatusChanged);
  parakeet.on('devices:changed', actions.devicesChanged);
  parakeet.on('models:progress', actions.downloadProgressed);
  parakeet.on('models:state', actions.downloadStateChanged);
  parakeet.on('models:changed', actions.modelsChanged);
  parakeet.on('models:importProgress', actions.importProgressed);
  parakeet.on('dictation:transcript', actions.transcriptReceived);
  parakeet.on('dictation:state', (ev) => {
    actions.sessionStateChanged(ev);
    dictation.handleServerState(ev);
  });
  parakeet.on('dictation:latency', actions.latencyReported);
  parakeet.on('dictation:inserted', actions.insertDelivered);
  // A lost meeting source is shown once, under its track in the Meeting view (and the recording chip leads
  // there), not also as a banner (issue 44 item 5).
  parakeet.on('notice', (notice) => {
    if (notice.code !== 'MEETING_SOURCE_UNAVAILABLE') actions.notify(notice);
  });
  parakeet.on('files:progress', (ev) => {
    actions.fileProgressed(ev);
    // The first event names the job: a cancel pressed before that can go now.
    void sendPendingFileCancel();
  });
  parakeet.on('history:changed', (change) => void historyChanged(change));
  // The global hotkey (desktop app): the same toggle as the Dictate button and Ctrl+Shift+Space.
  parakeet.on('dictation:toggle', () => void dictation.toggle());
  // Push-to-talk / hybrid / toggle decided by main's hotkey state machine, with the key-down time.
  parakeet.on('dictation:hotkey', (event) => void dictation.hotkey(event));
  parakeet.on('dictation:inserted', actions.textInserted);
  meeting.subscribe(parakeet);
}

/** Returns false when there is no way to reach the main process (a banner says what to do). */
export function installBridge(): boolean {
  let parakeet = window.parakeet;
  if (!parakeet) {
    const url = bridgeUrlFromLocation(window.location);
    if (!url) {
      actions.connectionChanged('disconnected');
      actions.notify(
        {
          level: 'error',
          code: 'UNAUTHORIZED',
          message: 'This page was opened without its access token.',
          action: 'Open the full address printed by "npm run web" (it ends in #token=…).',
        },
        'connection',
      );
      return false;
    }
    const client = new WebClient({ url, socketFactory: browserSocketFactory });
    let everConnected = false;
    client.onConnection((state) => {
      actions.connectionChanged(state);
      if (state === 'connected') {
        // After a reconnect, events may have been missed: read the state again.
        if (everConnected) {
          void dictation.handleReconnect((sessionId) => client.takeDroppedAudio(sessionId));
          // The dropped socket left the meeting without its page: take it over again.
          void meeting.resume();
          void loadAll();
        }
        everConnected = true;
      }
    });
    window.parakeet = client;
    // Read it back: whatever is installed as window.parakeet (instrumentation
    // included) is the one object every call goes through.
    parakeet = window.parakeet ?? client;
  } else {
    actions.connectionChanged('connected');
  }
  setApi(parakeet);
  actions.modeKnown(parakeet.mode);
  subscribe(parakeet);
  void loadAll();
  // A meeting recording while this page (re)loaded: shown again and its microphone resumed.
  void meeting.resume();
  return true;
}
