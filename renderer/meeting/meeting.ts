// The window's meeting controller with the real microphone and API.
import { DEFAULT_SETTINGS } from '../../app/ipc/settings.js';
import { openMic } from '../audio/mic.js';
import { api } from '../store/api.js';
import { appStore } from '../store/store.js';
import { MeetingController } from './meeting-controller.js';
import { openLoopback } from './loopback.js';

export const meeting = new MeetingController({
  api,
  openMic,
  openLoopback,
  audio: () => appStore.getState().settings.values?.audio ?? DEFAULT_SETTINGS.audio,
});
