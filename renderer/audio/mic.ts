// Opens the microphone and runs it through the capture worklet at 16 kHz.
// Browser-only (getUserMedia, AudioContext); the frame routing and the
// pre-roll live in capture-router.ts so they can be tested without a browser.
import type { AudioCaptureSettings } from '../../app/ipc/contract.js';
import { MicError, type MicHandle, type MicOptions } from './mic-types.js';
// Built as its own file and loaded by URL: CSP script-src 'self' allows it,
// where a blob: or data: worklet would be refused.
import workletUrl from './capture-worklet.ts?worker&url';
import { CAPTURE_PROCESSOR_NAME, type CaptureProcessorOptions, type FromWorklet, type ToWorklet } from './worklet-protocol.js';

/** The sample rate the engine wants; the AudioContext resamples the device to it. */
export const CAPTURE_SAMPLE_RATE = 16_000;

export { MicError, type MicErrorCode, type MicHandle, type MicOptions } from './mic-types.js';

function constraints(audio: AudioCaptureSettings, withDevice: boolean): MediaStreamConstraints {
  const track: MediaTrackConstraints = {
    // Off by default: browser processing distorts what the recogniser hears
    // (auto gain clips); users turn them on for noisy rooms or speakers.
    echoCancellation: audio.echoCancellation,
    noiseSuppression: audio.noiseSuppression,
    autoGainControl: audio.autoGainControl,
    channelCount: { ideal: 1 },
  };
  if (withDevice && audio.inputDeviceId) track.deviceId = { exact: audio.inputDeviceId };
  return { audio: track, video: false };
}

function micError(error: unknown): MicError {
  const name = error instanceof Error || error instanceof DOMException ? error.name : '';
  const detail = error instanceof Error ? error.message : String(error);
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return new MicError('PERMISSION_DENIED', 'Microphone access was denied.');
    case 'NotFoundError':
    case 'OverconstrainedError':
      return new MicError('MIC_NOT_FOUND', 'No microphone was found.');
    case 'NotReadableError':
    case 'AbortError':
      return new MicError('MIC_BUSY', `The microphone could not be started (${detail}).`);
    default:
      return new MicError('MIC_FAILED', `The microphone could not be opened: ${detail}`);
  }
}

async function getStream(opts: MicOptions): Promise<MediaStream> {
  if (!navigator.mediaDevices?.getUserMedia) {
    throw new MicError('MIC_UNSUPPORTED', 'Audio capture is not available in this page.');
  }
  try {
    return await navigator.mediaDevices.getUserMedia(constraints(opts.audio, true));
  } catch (error) {
    const name = error instanceof Error || error instanceof DOMException ? error.name : '';
    // The remembered input is gone (unplugged): use the default and say so.
    if (opts.audio.inputDeviceId && (name === 'OverconstrainedError' || name === 'NotFoundError')) {
      try {
        const stream = await navigator.mediaDevices.getUserMedia(constraints(opts.audio, false));
        opts.onFallback?.('The chosen microphone is not available; using the default input instead.');
        return stream;
      } catch (fallbackError) {
        throw micError(fallbackError);
      }
    }
    throw micError(error);
  }
}

async function createContext(): Promise<AudioContext> {
  const context = new AudioContext({ sampleRate: CAPTURE_SAMPLE_RATE, latencyHint: 'interactive' });
  try {
    await context.audioWorklet.addModule(workletUrl);
    return context;
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}

export function openMic(opts: MicOptions): Promise<MicHandle> {
  return openCapture(() => getStream(opts), opts);
}

/**
 * Any audio MediaStream through the capture worklet as 16 kHz frames: the microphone, or the system audio a
 * getDisplayMedia loopback gives (meeting/loopback.ts). `open` throws a MicError that says what happened.
 */
export async function openCapture(open: () => Promise<MediaStream>, opts: Omit<MicOptions, 'audio'>): Promise<MicHandle> {
  if (typeof AudioWorkletNode === 'undefined') {
    throw new MicError('MIC_UNSUPPORTED', 'AudioWorklet is not available in this page.');
  }
  // The device starts delivering as soon as getUserMedia resolves, but samples
  // only reach us once the worklet is connected: prepare the context and load
  // the worklet while the permission/device request is pending.
  const [streamResult, contextResult] = await Promise.allSettled([open(), createContext()]);
  if (streamResult.status === 'rejected') {
    if (contextResult.status === 'fulfilled') await contextResult.value.close().catch(() => undefined);
    throw streamResult.reason instanceof MicError ? streamResult.reason : micError(streamResult.reason);
  }
  const stream = streamResult.value;
  if (contextResult.status === 'rejected') {
    for (const t of stream.getTracks()) t.stop();
    throw micError(contextResult.reason);
  }
  const ctx = contextResult.value;
  const [track] = stream.getAudioTracks();
  try {
    const source = ctx.createMediaStreamSource(stream);
    const processorOptions: CaptureProcessorOptions = { frameSize: Math.round((ctx.sampleRate * opts.frameMs) / 1000) };
    const node = new AudioWorkletNode(ctx, CAPTURE_PROCESSOR_NAME, {
      numberOfInputs: 1,
      numberOfOutputs: 1,
      outputChannelCount: [1],
      channelCount: 1,
      channelCountMode: 'explicit',
      channelInterpretation: 'speakers',
      processorOptions,
    });
    let flushWaiters: (() => void)[] = [];
    node.port.onmessage = (event: MessageEvent<FromWorklet>) => {
      const msg = event.data;
      if (msg.type === 'frame') opts.onFrame(msg.samples);
      else if (msg.type === 'flushed') {
        const waiters = flushWaiters;
        flushWaiters = [];
        for (const w of waiters) w();
      }
    };
    source.connect(node);
    // The node writes silence; connecting it keeps the graph pulling it.
    node.connect(ctx.destination);
    await ctx.resume();

    let closed = false;
    track?.addEventListener('ended', () => {
      if (!closed) opts.onEnded();
    });
    const post = (m: ToWorklet): void => node.port.postMessage(m);
    return {
      sampleRate: ctx.sampleRate,
      label: track?.label || 'Default microphone',
      flush: () =>
        new Promise<void>((resolve) => {
          if (closed) return resolve();
          // A render quantum is 8 ms; if the context is stuck, do not hang the stop.
          const timer = setTimeout(resolve, 500);
          flushWaiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
          post({ type: 'flush' });
        }),
      close: async () => {
        if (closed) return;
        closed = true;
        post({ type: 'close' });
        source.disconnect();
        node.disconnect();
        for (const t of stream.getTracks()) t.stop();
        await ctx.close().catch(() => undefined);
      },
    };
  } catch (error) {
    for (const t of stream.getTracks()) t.stop();
    await ctx.close().catch(() => undefined);
    throw error instanceof MicError ? error : micError(error);
  }
}

/** Audio inputs for the Settings picker (labels appear once permission was granted). */
export async function listInputs(): Promise<{ deviceId: string; label: string }[]> {
  if (!navigator.mediaDevices?.enumerateDevices) return [];
  const devices = await navigator.mediaDevices.enumerateDevices();
  return devices
    .filter((d) => d.kind === 'audioinput' && d.deviceId !== 'default' && d.deviceId !== 'communications')
    .map((d, i) => ({ deviceId: d.deviceId, label: d.label || `Microphone ${i + 1}` }));
}
