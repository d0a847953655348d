// Every notice the engine host emits, worded in one place: what happened, in
// a sentence a user can act on, and what to do about it.
import type { Notice } from '../../ipc/contract.js';

export const engineNotices = {
  crashed(reason: string, device: string | null, restarting: boolean): Notice {
    const where = device ? ` while running on ${device}` : '';
    return {
      level: 'warning',
      code: 'ENGINE_CRASHED',
      message: `The engine process stopped (${reason})${where}. ` +
        (restarting ? 'It is being restarted; audio and text already captured are kept.' : 'It keeps crashing, so it was not restarted.'),
      action: restarting ? undefined : 'Choose the CPU in Devices, or reload the model to try again; the log file has details.',
    };
  },

  restarted(device: string | null): Notice {
    return {
      level: 'info',
      code: 'ENGINE_RESTARTED',
      message: device ? `The engine was restarted and continues on ${device}.` : 'The engine was restarted; load a model to continue.',
    };
  },

  selfTestIncomplete(device: string, why: string): Notice {
    return {
      level: 'warning',
      code: 'DEVICE_SELF_TEST_INCOMPLETE',
      message: `The self-test of ${device} could not run (${why}); its results are not checked.`,
      action: 'Run the self-test again from Devices, or choose the CPU there.',
    };
  },

  /** A device not in use failed its test: it is only marked. */
  selfTestFailed(device: string, detail: string): Notice {
    return {
      level: 'warning',
      code: 'DEVICE_SELF_TEST_FAILED',
      message: `The self-test of ${device} failed: ${detail}. It is marked unusable for this run.`,
      action: 'Restart the app to try it again (after a driver update, for example).',
    };
  },

  /** The CPU failed its self-test and stays in use: it is the last resort, or the device the user chose. */
  cpuSelfTestFailed(detail: string): Notice {
    return {
      level: 'warning',
      code: 'DEVICE_SELF_TEST_FAILED',
      message: `The self-test of the CPU failed: ${detail}. The model stays on the CPU (the device you chose, or the only one left), ` +
        'so its results may be wrong.',
      action: 'Report it with the diagnostics from Settings › About (Copy diagnostics); a GPU, if this machine has one, can be chosen in Devices.',
    };
  },

  /** The device in use failed and the model moved to `now`. */
  selfTestFailedMoved(device: string, detail: string, now: string): Notice {
    return {
      level: 'warning',
      code: 'DEVICE_SELF_TEST_FAILED',
      message: `The self-test of ${device} failed: ${detail}. It is marked unusable for this run; ` +
        `the engine continues on ${now}.`,
      action: 'Restart the app to try the device again (after a driver update, for example).',
    };
  },

  /** Auto's device passed its self-test but decoded slower than the CPU: the model moved to `now`. */
  slowerMoved(device: string, speed: string, now: string): Notice {
    return {
      level: 'info',
      code: 'DEVICE_SLOWER_THAN_CPU',
      message: `${device} works but measured slower than the CPU (${speed}); Auto uses ${now} instead.`,
      action: 'Choose the device in Devices to use it anyway.',
    };
  },

  /** A decode failed on the device in use (a lost device, a driver fault); the model moved to `now`, where the decode runs again. */
  deviceFailedMoved(device: string, why: string, now: string): Notice {
    return {
      level: 'warning',
      code: 'DEVICE_FAILED',
      message: `${device} failed while decoding (${why}). It is marked unusable for this run; the engine continues on ${now}.`,
      action: 'Restart the app to try the device again (after a driver update, for example).',
    };
  },

  /** The model was loaded for `device`, which could not start (no driver for it, out of its memory): it runs on the CPU. */
  deviceCouldNotStart(device: string, why: string): Notice {
    return {
      level: 'warning',
      code: 'DEVICE_FAILED',
      message: `${device} could not start (${why}), so the model runs on the CPU. ${device} is marked unusable for this run.`,
      action: 'Check its driver (the log file has details) and restart the app to try it again, or choose the CPU in Devices.',
    };
  },

  /** The model did not fit in the GPU's free memory; it runs on the CPU and the GPU stays usable for others. */
  deviceNoRoom(device: string): Notice {
    return {
      level: 'warning',
      code: 'DEVICE_NO_ROOM',
      message: `${device} has too little free memory for this model's weights, so the model runs on the CPU. Other models still go to ${device}.`,
      action: `A smaller model, or a smaller weight type in Settings, may fit on ${device}; the log file has the figures.`,
    };
  },

  /** The device in use failed and the model could not be moved. */
  selfTestFailedStuck(device: string, detail: string, why: string): Notice {
    return {
      level: 'error',
      code: 'DEVICE_SELF_TEST_FAILED',
      message: `The self-test of ${device} failed: ${detail}. The model could not be moved to another device (${why}).`,
      action: 'Choose the CPU in Devices.',
    };
  },
};
