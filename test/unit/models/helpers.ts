// Shared fixtures for the model-manager tests: fake model bytes, a stand-in
// for the engine's validator, a catalog that points at test files, and a
// manager wired to a local HTTPS server.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseCatalog, type Catalog } from '../../../app/main/models/catalog.js';
import { ModelManager, type ModelManagerOptions } from '../../../app/main/models/model-manager.js';
import type { DownloadProgress, DownloadSnapshot, ValidatedModelInfo } from '../../../app/main/models/types.js';
import type { TestHttpsServer } from '../../support/https-server/server.js';

export const MARKER = 'PARAKEET-TEST-MODEL';
export const RESOLVE = '/mudler/parakeet-cpp-gguf/resolve/main';

/** Bytes that the stand-in validator accepts: GGUF magic, version 3, marker, then noise. */
export function modelBytes(size: number): Buffer {
  const head = Buffer.alloc(32);
  head.write('GGUF', 0, 'latin1');
  head.writeUInt32LE(3, 4);
  head.write(MARKER, 8, 'latin1');
  return Buffer.concat([head, randomBytes(Math.max(0, size - head.length))]);
}

/**
 * Stand-in for the engine's validateModel: checks the GGUF magic and the test
 * marker, and rejects like the engine does (Error with code MODEL_INVALID and
 * a message naming the file and the problem).
 */
export async function fakeValidate(filePath: string): Promise<ValidatedModelInfo> {
  const handle = await fs.open(filePath, 'r');
  try {
    const buf = Buffer.alloc(32);
    await handle.read(buf, 0, 32, 0);
    const magic = buf.subarray(0, 4).toString('latin1');
    if (magic !== 'GGUF') {
      throw Object.assign(new Error(`${path.basename(filePath)}: not a GGUF file (magic "${magic.replace(/[^\x20-\x7e]/g, '?')}", expected "GGUF")`), {
        code: 'MODEL_INVALID',
      });
    }
    if (!buf.subarray(8, 8 + MARKER.length).equals(Buffer.from(MARKER, 'latin1'))) {
      throw Object.assign(new Error(`${path.basename(filePath)}: tensor "encoder.pre_encode.conv.0.weight" missing`), {
        code: 'MODEL_INVALID',
      });
    }
    return { architecture: 'hybrid_tdt_ctc', decoders: ['tdt', 'ctc'], name: 'test model' };
  } finally {
    await handle.close();
  }
}

export interface TestModelSpec {
  slug: string;
  variant?: 'f16' | 'q8_0' | 'q6_k' | 'q5_k' | 'q4_k';
  sha256?: string | null;
  approxBytes?: number | null;
  engineSupport?: 'supported' | 'not-yet';
  recommended?: 'english-dictation' | 'multilingual' | null;
}

/** A catalog in the real schema (validated by parseCatalog) for test files. */
export function testCatalog(specs: TestModelSpec[]): Catalog {
  const license = {
    spdx: 'CC-BY-4.0',
    name: 'Creative Commons Attribution 4.0 International',
    url: 'https://creativecommons.org/licenses/by/4.0/',
    confirmed: true,
    source: 'test',
    attribution: 'Test model by NVIDIA, CC BY 4.0.',
  };
  return parseCatalog({
    schemaVersion: 1,
    repository: 'mudler/parakeet-cpp-gguf',
    revision: 'main',
    urlPattern: 'https://huggingface.co/{repository}/resolve/{revision}/{file}',
    models: specs.map((s) => {
      const variant = s.variant ?? 'q8_0';
      const file = `${s.slug}-${variant}.gguf`;
      return {
        slug: s.slug,
        upstream: `nvidia/parakeet-${s.slug}`,
        displayName: `Test ${s.slug}`,
        architecture: 'hybrid_tdt_ctc',
        decoders: ['tdt', 'ctc'],
        parameters: '1M',
        languages: s.recommended === 'multilingual' ? ['en', 'de', 'fr'] : ['en'],
        languagesNote: null,
        casing: true,
        punctuation: true,
        streaming: false,
        engineSupport: s.engineSupport ?? 'supported',
        recommendedUse: 'tests',
        license,
        variants: [
          {
            variant,
            file,
            url: `https://huggingface.co/mudler/parakeet-cpp-gguf/resolve/main/${file}`,
            approxBytes: s.approxBytes ?? null,
            sizeSource: s.approxBytes ? 'test estimate' : null,
            sha256: s.sha256 ?? null,
            recommended: s.recommended ?? null,
            notes: null,
          },
        ],
      };
    }),
  });
}

export interface Harness {
  manager: ModelManager;
  modelsDir: string;
  cleanup: () => Promise<void>;
}

export function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'parakeet-models-'));
}

/** A manager whose mirror endpoint is the test server, trusting its certificate. */
export async function makeManager(
  server: TestHttpsServer | null,
  catalog: Catalog,
  extra: Partial<ModelManagerOptions> = {},
  modelsDir = tempDir(),
): Promise<Harness> {
  const manager = await ModelManager.create({
    modelsDir,
    validateModel: fakeValidate,
    catalog,
    endpoint: server?.origin ?? null,
    retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 },
    progressIntervalMs: 20,
    ...extra,
    network: { ca: server?.ca, env: {}, idleTimeoutMs: 5000, ...extra.network },
  });
  return {
    manager,
    modelsDir,
    cleanup: async () => {
      await manager.dispose();
      rmSync(modelsDir, { recursive: true, force: true });
    },
  };
}

/** Files under <models>/.downloads (partials and their state). */
export async function downloadsDir(modelsDir: string): Promise<string[]> {
  return (await fs.readdir(path.join(modelsDir, '.downloads'))).sort();
}

export async function installedIds(manager: ModelManager): Promise<string[]> {
  return (await manager.listInstalled()).map((m) => m.id).sort();
}

export function recordEvents(manager: ModelManager): { states: DownloadSnapshot[]; progress: DownloadProgress[]; warnings: string[] } {
  const rec = { states: [] as DownloadSnapshot[], progress: [] as DownloadProgress[], warnings: [] as string[] };
  manager.on('state', (s) => rec.states.push(s));
  manager.on('progress', (p) => rec.progress.push(p));
  manager.on('warning', (w) => rec.warnings.push(w.message));
  return rec;
}

/** Resolves once `id` has at least `bytes` received. */
export function waitForBytes(manager: ModelManager, id: string, bytes: number, ms = 5000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for ${bytes} bytes of ${id}`));
    }, ms);
    const off = manager.on('progress', (p) => {
      if (p.id === id && p.receivedBytes >= bytes) {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
  });
}
