// Server-side truth for the dictation specs: the final events as the session
// manager emitted them (with sample-exact cut points), the audio it stored,
// and the offline transcript of each cut through files:transcribe.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileTranscript, TranscriptEvent } from '../../../app/ipc/contract.js';
import type { WebServer } from '../../../app/web/server.js';
import { encodeWavFloat32 } from './float-wav.js';

export interface FinalRecord {
  segmentId: number;
  text: string;
  startSample: number;
  endSample: number;
  devicesRan: string[];
  /** Streaming prompt models: the final's language. */
  language?: string;
}

/** Records every transcript event the services emit (before they reach the page). */
export class TranscriptRecorder {
  readonly events: TranscriptEvent[] = [];
  private readonly off: () => void;

  constructor(server: WebServer) {
    this.off = server.services.bus.on('dictation:transcript', (ev) => this.events.push(ev));
  }

  finals(sessionId: string): FinalRecord[] {
    return this.events
      .filter((e) => e.sessionId === sessionId && e.kind === 'final')
      .sort((a, b) => a.segmentId - b.segmentId)
      .map((e) => {
        if (e.startSample === undefined || e.endSample === undefined) throw new Error(`final ${e.segmentId} lacks its sample cut points`);
        return {
          segmentId: e.segmentId, text: e.text, startSample: e.startSample, endSample: e.endSample, devicesRan: e.devicesRan,
          ...(e.language ? { language: e.language } : {}),
        };
      });
  }

  /** The partial texts of one segment, in order. */
  partials(sessionId: string, segmentId: number): string[] {
    return this.events.filter((e) => e.sessionId === sessionId && e.segmentId === segmentId && e.kind === 'partial').map((e) => e.text);
  }

  partialsBefore(sessionId: string, segmentId: number): number {
    const finalIndex = this.events.findIndex((e) => e.sessionId === sessionId && e.segmentId === segmentId && e.kind === 'final');
    return this.events.slice(0, finalIndex < 0 ? undefined : finalIndex).filter((e) => e.sessionId === sessionId && e.kind === 'partial').length;
  }

  dispose(): void {
    this.off();
  }
}

/** The session's stored audio (the server keeps it after stop: retainSessionAudio). */
export async function sessionAudio(server: WebServer, sessionId: string): Promise<Float32Array> {
  const session = server.services.sessions.get(sessionId);
  if (!session) throw new Error(`session ${sessionId} is not known to the server (retainSessionAudio off?)`);
  return session.audio();
}

/** Offline transcripts of the same audio cut at the same points, through the app's own file path. */
export async function offlineTranscripts(server: WebServer, audio: Float32Array, finals: FinalRecord[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'parakeet-cuts-'));
  try {
    const texts: string[] = [];
    for (const f of finals) {
      const path = join(dir, `segment-${f.segmentId}.wav`);
      writeFileSync(path, encodeWavFloat32(audio.subarray(f.startSample, f.endSample), 16_000));
      const result = await server.services.router.handle('files:transcribe', { path }, { clientId: 'e2e-offline' });
      if (!result.ok) throw new Error(`files:transcribe of segment ${f.segmentId}: ${result.error.code} ${result.error.message}`);
      texts.push((result.value as FileTranscript).text.trim());
    }
    return texts;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const joinFinals = (texts: readonly string[]): string => texts.map((t) => t.trim()).filter(Boolean).join(' ');
