// Reads the session manager's truth from the Electron main process (needs
// PARAKEET_TEST_HOOKS=1: main exposes globalThis.parakeetTest.services).
// Returns the finals of a session with their cut points and the offline
// transcripts of the same cuts, computed in main through files:transcribe.
import type { ElectronApplication } from '@playwright/test';

export interface MainSessionCheck {
  finals: { segmentId: number; text: string; startSample: number; endSample: number }[];
  offline: string[];
  samples: number;
}

export async function checkSessionInMain(electron: ElectronApplication, sessionId: string): Promise<MainSessionCheck> {
  return electron.evaluate(async (_electron, id) => {
    // Runs inside Electron's main process: Node built-ins come from process.getBuiltinModule.
    const hooks = (globalThis as { parakeetTest?: { services: {
      sessions: { get(id: string): { audio(): Promise<Float32Array> } | undefined };
      router: { handle(channel: string, payload: unknown, ctx: { clientId: string }): Promise<{ ok: boolean; value?: { text: string }; error?: { message: string } }> };
    } } }).parakeetTest;
    if (!hooks) throw new Error('main did not expose globalThis.parakeetTest (PARAKEET_TEST_HOOKS=1)');
    const session = hooks.services.sessions.get(id);
    if (!session) throw new Error(`session ${id} not retained`);
    const audio = await session.audio();
    const getBuiltin = (process as unknown as { getBuiltinModule(name: string): unknown }).getBuiltinModule;
    const fs = getBuiltin('node:fs') as typeof import('node:fs');
    const os = getBuiltin('node:os') as typeof import('node:os');
    const path = getBuiltin('node:path') as typeof import('node:path');
    const events = (globalThis as { parakeetTestFinals?: Record<string, MainSessionCheck['finals']> }).parakeetTestFinals?.[id] ?? [];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parakeet-cuts-'));
    const offline: string[] = [];
    try {
      for (const f of events) {
        const pcm = audio.subarray(f.startSample, f.endSample);
        const buf = Buffer.alloc(44 + pcm.length * 4);
        buf.write('RIFF', 0, 'latin1'); buf.writeUInt32LE(36 + pcm.length * 4, 4); buf.write('WAVE', 8, 'latin1');
        buf.write('fmt ', 12, 'latin1'); buf.writeUInt32LE(16, 16); buf.writeUInt16LE(3, 20); buf.writeUInt16LE(1, 22);
        buf.writeUInt32LE(16000, 24); buf.writeUInt32LE(64000, 28); buf.writeUInt16LE(4, 32); buf.writeUInt16LE(32, 34);
        buf.write('data', 36, 'latin1'); buf.writeUInt32LE(pcm.length * 4, 40);
        for (let i = 0; i < pcm.length; i++) buf.writeFloatLE(pcm[i], 44 + i * 4);
        const file = path.join(dir, `seg-${f.segmentId}.wav`);
        fs.writeFileSync(file, buf);
        const r = await hooks.services.router.handle('files:transcribe', { path: file }, { clientId: 'e2e-offline' });
        if (!r.ok) throw new Error(r.error?.message ?? 'files:transcribe failed');
        offline.push((r.value?.text ?? '').trim());
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    return { finals: events, offline, samples: audio.length };
  }, sessionId);
}

/** Starts recording final events in main (call before dictating). */
export async function recordFinalsInMain(electron: ElectronApplication): Promise<void> {
  await electron.evaluate(() => {
    const g = globalThis as {
      parakeetTest?: { services: { bus: { on(e: string, l: (ev: { sessionId: string; segmentId: number; kind: string; text: string; startSample?: number; endSample?: number }) => void): () => void } } };
      parakeetTestFinals?: Record<string, { segmentId: number; text: string; startSample: number; endSample: number }[]>;
    };
    if (!g.parakeetTest) throw new Error('main did not expose globalThis.parakeetTest (PARAKEET_TEST_HOOKS=1)');
    if (g.parakeetTestFinals) return;
    const finals: Record<string, { segmentId: number; text: string; startSample: number; endSample: number }[]> = {};
    g.parakeetTestFinals = finals;
    g.parakeetTest.services.bus.on('dictation:transcript', (ev) => {
      if (ev.kind !== 'final') return;
      (finals[ev.sessionId] ??= []).push({ segmentId: ev.segmentId, text: ev.text.trim(), startSample: ev.startSample ?? 0, endSample: ev.endSample ?? 0 });
    });
  });
}
