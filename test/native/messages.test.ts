// What the CLI (and with it the engine and the file reader the app shares) says about inputs a probe
// tried: a 70 000-character model name is cut for display; /proc/self/mem, a missing file and a folder
// are named in words, not as raw EIO/ENOENT; a damaged FLAC is "could not be decoded", not "empty";
// .nemo, ONNX and safetensors files are named as the checkpoints they are, with what to do.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MAX_MODEL_NAME_CHARS, Model } from '../../native/index.js';
import { generateModel } from '../support/model/generate.js';
import { parakeet } from './helpers/cli.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('messages');
const model = join(dir, 'tiny.gguf');
generateModel(model, { preset: 'tiny', arch: 'ctc', seed: 5 });

test('a 70 000-character model name is cut for display everywhere the engine reports it', async () => {
  const longName = join(dir, 'long-name.gguf');
  generateModel(longName, { preset: 'tiny', arch: 'ctc', seed: 5, label: `Parakeet ${'x'.repeat(70_000)}` });
  const loaded = await Model.load(longName, { device: 'cpu' });
  try {
    const { name } = loaded.info();
    assert.ok([...name].length <= MAX_MODEL_NAME_CHARS + 30, `${name.length} characters`);
    assert.match(name, /^Parakeet x+… \(70009 characters\)$/);
  } finally {
    loaded.dispose();
  }
  const info = parakeet(['info', longName]);
  assert.equal(info.status, 0, info.stderr);
  const line = info.stdout.split('\n').find((l) => l.startsWith('name:'))!;
  assert.ok(line.length < 200, `info's name line has ${line.length} characters`);
});

test('unreadable audio is named in words: /proc/self/mem, a missing file, a folder', () => {
  for (const [file, words] of [
    ['/proc/self/mem', /could not be read \(an input\/output error/],
    [join(dir, 'missing.wav'), /was not found\. Check the path/],
    [dir, /is a folder, not a file/],
  ] as const) {
    if (file === '/proc/self/mem' && process.platform !== 'linux') continue;
    const run = parakeet(['transcribe', file, '--model', model]);
    assert.equal(run.status, 1, run.stderr);
    assert.match(run.stderr, words);
    assert.doesNotMatch(run.stderr, /\b(EIO|ENOENT|EISDIR): /, 'no raw fs error text');
  }
});

test('a damaged FLAC is "could not be decoded", not "empty"', { skip: spawnSync('which', ['sox']).status !== 0 && 'needs sox' }, () => {
  const good = join(dir, 'tone.flac');
  assert.equal(spawnSync('sox', ['-n', '-r', '16000', '-c', '1', good, 'synth', '3', 'sine', '440']).status, 0);
  const bytes = readFileSync(good);
  for (let i = 200; i < bytes.length; i += 7) bytes[i] = bytes[i]! ^ 0x5a; // the stream, not the header
  const damaged = join(dir, 'damaged.flac');
  writeFileSync(damaged, bytes);
  const run = parakeet(['transcribe', damaged, '--model', model]);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /damaged\.flac could not be decoded: \w+ found no audio in it.*damaged or holds no sound track/);
  assert.doesNotMatch(run.stderr, /empty/);
});

test('.nemo, ONNX and safetensors files are named as checkpoints to convert, by info and by the import pre-check', () => {
  const noise = Buffer.alloc(4096, 7);
  const header = Buffer.from(JSON.stringify({ w: { dtype: 'F32', shape: [1], data_offsets: [0, 4] } }));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(header.length));
  const files: [string, Buffer, RegExp][] = [
    ['model.nemo', Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), noise]), /it is a NeMo checkpoint, \.nemo: convert the checkpoint to GGUF first/],
    ['model.onnx', Buffer.concat([Buffer.from([0x08, 0x07, 0x12, 0x04]), noise]), /it is an ONNX model: convert the checkpoint to GGUF first/],
    ['model.safetensors', Buffer.concat([length, header, Buffer.alloc(4)]), /it is a safetensors file: convert the checkpoint to GGUF first/],
    ['weights.bin', Buffer.concat([length, header, Buffer.alloc(4)]), /it is a safetensors file/],
  ];
  for (const [name, bytes, words] of files) {
    const file = join(dir, name);
    writeFileSync(file, bytes);
    const run = parakeet(['info', file]);
    assert.equal(run.status, 1, name);
    assert.match(run.stderr, /not a GGUF file/, name);
    assert.match(run.stderr, words, name);
  }
});
