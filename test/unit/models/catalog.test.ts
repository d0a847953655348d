// The bundled catalog: every published slug × variant, honest data (no
// invented sizes or hashes), the two first-run defaults, licences; and the
// validator refusing bad data. Plus the URL/host policy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VARIANTS, bundledCatalog, findEntry, parseCatalog, recommendedEntry } from '../../../app/main/models/catalog.js';
import { HostPolicy, normalizeEndpoint, resolveDownloadUrl } from '../../../app/main/models/url-policy.js';

const SLUGS = [
  'tdt_ctc-110m',
  'tdt-0.6b-v2',
  'tdt-0.6b-v3',
  'tdt-1.1b',
  'tdt_ctc-1.1b',
  'ctc-0.6b',
  'ctc-1.1b',
  'rnnt-0.6b',
  'rnnt-1.1b',
  'realtime_eou_120m-v1',
  'nemotron-3.5-asr-streaming-0.6b',
];

test('every slug × variant is in the catalog with the Hugging Face URL', () => {
  const c = bundledCatalog();
  assert.equal(c.entries.length, SLUGS.length * VARIANTS.length);
  for (const slug of SLUGS) {
    for (const v of VARIANTS) {
      const e = findEntry(c, `${slug}-${v}`);
      assert.ok(e, `${slug}-${v}`);
      assert.equal(e.file, `${slug}-${v}.gguf`);
      assert.equal(e.url, `https://huggingface.co/mudler/parakeet-cpp-gguf/resolve/main/${slug}-${v}.gguf`);
      assert.ok(e.languages.length > 0);
      assert.ok(e.license.attribution.includes('NVIDIA'));
    }
  }
});

test('no invented numbers: hashes unknown, sizes only where the spec gives them, each with a source', () => {
  const c = bundledCatalog();
  assert.ok(c.entries.every((e) => e.sha256 === null), 'no published sha256 is confirmed');
  const sized = Object.fromEntries(c.entries.filter((e) => e.approxBytes !== null).map((e) => [e.id, e.approxBytes]));
  assert.deepEqual(sized, {
    'tdt_ctc-110m-f16': 267_452_512,
    'tdt_ctc-110m-q8_0': 177_796_192,
    'tdt_ctc-110m-q6_k': 155_937_344,
    'tdt_ctc-110m-q4_k': 131_387_456,
    'tdt-0.6b-v2-f16': 1_404_218_624,
    'tdt-0.6b-v2-q8_0': 903_835_904,
    'tdt-0.6b-v3-f16': 1_440_000_000,
    'tdt-0.6b-v3-q8_0': 940_663_680,
    'nemotron-3.5-asr-streaming-0.6b-f16': 1_484_300_000,
    'nemotron-3.5-asr-streaming-0.6b-q8_0': 983_700_000,
    'nemotron-3.5-asr-streaming-0.6b-q6_k': 855_700_000,
    'nemotron-3.5-asr-streaming-0.6b-q5_k': 784_800_000,
    'nemotron-3.5-asr-streaming-0.6b-q4_k': 718_100_000,
  });
  for (const e of c.entries) assert.equal(e.approxBytes === null, e.sizeSource === null, e.id);
});

test('first-run defaults: 110M hybrid Q8_0 for English dictation, 0.6B v3 Q8_0 multilingual', () => {
  const c = bundledCatalog();
  const en = recommendedEntry(c, 'english-dictation');
  const multi = recommendedEntry(c, 'multilingual');
  assert.equal(en?.id, 'tdt_ctc-110m-q8_0');
  assert.equal(en?.architecture, 'hybrid_tdt_ctc');
  assert.deepEqual(en?.decoders, ['tdt', 'ctc']);
  assert.equal(multi?.id, 'tdt-0.6b-v3-q8_0');
  assert.equal(multi?.languages.length, 25);
  assert.equal(c.entries.filter((e) => e.recommended).length, 2);
});

test('every entry is supported now that streaming and prompt models run (both streaming checkpoints stream); licences are honest', () => {
  const c = bundledCatalog();
  for (const e of c.entries) assert.equal(e.engineSupport, 'supported', e.id);
  assert.equal(findEntry(c, 'realtime_eou_120m-v1-q8_0')?.streaming, true);
  assert.equal(findEntry(c, 'nemotron-3.5-asr-streaming-0.6b-q8_0')?.streaming, true);
  assert.equal(findEntry(c, 'tdt_ctc-110m-q8_0')?.license.spdx, 'CC-BY-4.0');
  assert.equal(findEntry(c, 'tdt_ctc-110m-q8_0')?.license.confirmed, true);
  assert.equal(findEntry(c, 'tdt-0.6b-v3-q8_0')?.license.spdx, 'CC-BY-4.0');
  assert.equal(findEntry(c, 'nemotron-3.5-asr-streaming-0.6b-q8_0')?.license.name, 'OpenMDW-1.1');
  assert.equal(findEntry(c, 'realtime_eou_120m-v1-f16')?.license.confirmed, false);
  assert.equal(findEntry(c, 'tdt-1.1b-q8_0')?.casing, false);
  assert.equal(findEntry(c, 'tdt-0.6b-v2-q8_0')?.punctuation, true);
});

test('the validator refuses bad catalog data', () => {
  const raw = (over: Record<string, unknown>): unknown => ({
    schemaVersion: 1,
    repository: 'mudler/parakeet-cpp-gguf',
    revision: 'main',
    urlPattern: 'https://huggingface.co/{repository}/resolve/{revision}/{file}',
    models: [
      {
        slug: 'x',
        upstream: 'nvidia/x',
        displayName: 'X',
        architecture: 'ctc',
        decoders: ['ctc'],
        parameters: '1',
        languages: ['en'],
        languagesNote: null,
        casing: false,
        punctuation: false,
        streaming: false,
        engineSupport: 'supported',
        recommendedUse: 'x',
        license: { spdx: null, name: 'x', url: 'https://x', confirmed: false, source: 'x', attribution: 'x' },
        variants: [
          {
            variant: 'q8_0',
            file: 'x-q8_0.gguf',
            url: 'https://huggingface.co/mudler/parakeet-cpp-gguf/resolve/main/x-q8_0.gguf',
            approxBytes: null,
            sizeSource: null,
            sha256: null,
            recommended: null,
            notes: null,
            ...over,
          },
        ],
      },
    ],
  });
  assert.equal(parseCatalog(raw({})).entries.length, 1);
  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [{ file: 'y-q8_0.gguf' }, /expected x-q8_0.gguf/],
    [{ url: 'http://huggingface.co/mudler/parakeet-cpp-gguf/resolve/main/x-q8_0.gguf' }, /url/],
    [{ approxBytes: 100 }, /needs a source/],
    [{ approxBytes: -1, sizeSource: 's' }, /positive integer/],
    [{ sha256: 'abc' }, /64 lowercase hex/],
    [{ variant: 'q3_k' }, /one of/],
  ];
  for (const [over, msg] of bad) {
    assert.throws(() => parseCatalog(raw(over)), (e: { code?: string; message?: string }) => {
      assert.equal(e.code, 'CATALOG_INVALID');
      assert.match(e.message ?? '', msg);
      return true;
    });
  }
});

test('URL policy: https only, mirror endpoint replaces the origin, host allowlist', () => {
  assert.equal(normalizeEndpoint(null), null);
  assert.equal(normalizeEndpoint(''), null);
  assert.equal(normalizeEndpoint('https://hf-mirror.com/'), 'https://hf-mirror.com');
  assert.equal(normalizeEndpoint('https://mirror.example/hf/'), 'https://mirror.example/hf');
  assert.throws(() => normalizeEndpoint('http://hf-mirror.com'), { code: 'INSECURE_URL' });
  assert.throws(() => normalizeEndpoint('ftp://x'), { code: 'INSECURE_URL' });
  assert.throws(() => normalizeEndpoint('https://u:p@x.example'), { code: 'INSECURE_URL' });
  assert.throws(() => normalizeEndpoint('not a url'), { code: 'INSECURE_URL' });
  const url = 'https://huggingface.co/mudler/parakeet-cpp-gguf/resolve/main/a.gguf';
  assert.equal(resolveDownloadUrl(url, null), url);
  assert.equal(resolveDownloadUrl(url, 'https://mirror.example/hf'), 'https://mirror.example/hf/mudler/parakeet-cpp-gguf/resolve/main/a.gguf');

  const p = HostPolicy.create('https://mirror.example/hf');
  for (const ok of ['huggingface.co', 'cdn-lfs.huggingface.co', 'cdn-lfs-us-1.hf.co', 'cas-bridge.xethub.hf.co', 'mirror.example']) {
    assert.ok(p.allows(ok), ok);
  }
  for (const no of ['evilhuggingface.co', 'huggingface.co.evil.com', 'hf.co.evil', 'example.com']) {
    assert.ok(!p.allows(no), no);
  }
  assert.throws(() => p.check('https://example.com/x'), { code: 'HOST_NOT_ALLOWED' });
  assert.throws(() => p.check('http://huggingface.co/x'), { code: 'INSECURE_URL' });
  assert.equal(p.check('https://cdn-lfs.hf.co/x').hostname, 'cdn-lfs.hf.co');
});

test('first run: a measured CPU rate becomes a speed class and a real-time estimate per proposal', async () => {
  const { machineSpeed } = await import('../../../app/main/models/machine-speed.js');
  const here = machineSpeed(75, 2);
  assert.equal(here.realTime['english-dictation'], 16.7);
  assert.equal(here.realTime.multilingual, 4.7);
  assert.equal(here.speedClass, 'fast');
  assert.equal(machineSpeed(20, 1).speedClass, 'fine');
  assert.equal(machineSpeed(5, 1).speedClass, 'slow');
});
