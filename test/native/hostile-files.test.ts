// Files chosen by someone else: what the engine says about a file that is not
// a model must not reveal the file's content (the path may name /etc/shadow or
// a key), files that are not regular files are called that, long strings from
// the file are not echoed whole, and a vocabulary's control characters never
// reach the text, the words or the token pieces (they go to terminals,
// subtitle files and `xdotool type`).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Model } from '../../native/index.js';
import { gv } from '../support/gguf/values.js';
import { generateModel } from '../support/model/generate.js';
import { makeVocabulary } from '../support/model/vocab.js';
import { noise, seconds, tone, concat } from './helpers/audio.js';
import { ONE_THREAD, rejectsWithCode } from './helpers/engine.js';
import { scratchDir } from './helpers/tmp.js';

const dir = scratchDir('hostile');
const linux = process.platform === 'linux';

describe('a file that is not a model', () => {
  test('no byte of its content is quoted; a known format is named instead', async () => {
    const secret = join(dir, 'shadow');
    writeFileSync(secret, 'root:$6$saltsalt$hashhashhash:19000:0:99999:7:::\n');
    const e = await rejectsWithCode(Model.load(secret), 'MODEL_INVALID', 'not a GGUF file');
    for (const leak of ['root', 'roo', 'ro:', '$6$', 'salt']) assert.ok(!e.message.replace(secret, '').includes(leak), `${leak} in ${e.message}`);

    const cases: [string, Uint8Array, string][] = [
      ['a.wav', new TextEncoder().encode('RIFF\x24\x00\x00\x00WAVEfmt '), 'RIFF file'],
      ['a.zip', Uint8Array.of(0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4), 'ZIP archive'],
      ['a.bin', Uint8Array.of(0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0), 'ELF executable'],
      ['a.txt', new TextEncoder().encode('GGUx-but-not'), 'not a GGUF file'],
    ];
    for (const [name, bytes, expected] of cases) {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      const error = await rejectsWithCode(Model.load(path), 'MODEL_INVALID', expected);
      assert.doesNotMatch(error.message.replace(path, ''), /starts with "(?!GGUF)/, error.message);
    }
  });

  test('a device, a FIFO and a /proc file are "not a regular file", not "empty"', { skip: !linux && 'Linux paths' }, async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    for (const path of ['/dev/zero', '/dev/null', fifo, '/proc/self/environ', '/proc/self/status']) {
      const e = await rejectsWithCode(Model.load(path), 'MODEL_INVALID', 'not a regular file');
      assert.doesNotMatch(e.message, /empty/, path);
    }
    const empty = join(dir, 'empty.gguf');
    writeFileSync(empty, '');
    await rejectsWithCode(Model.load(empty), 'MODEL_INVALID', 'empty (0 bytes)');
  });

  test('a 70,000-character string from the file is cut in the message, with its length', async () => {
    const path = join(dir, 'long-arch.gguf');
    generateModel(path, { preset: 'tiny', arch: 'ctc', extraKv: [{ key: 'parakeet.arch', value: gv.str(`\u001b[2J${'x'.repeat(70_000)}`) }] });
    const e = await rejectsWithCode(Model.load(path), 'MODEL_INVALID', 'parakeet.arch');
    assert.ok(e.message.length < path.length + 400, `${e.message.length} characters`);
    assert.match(e.message, /\(70004 bytes\)/);
    assert.ok(!e.message.includes('\u001b'), 'no control characters from the file');
  });
});

/** Everything a vocabulary must not put into a transcript. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2028\u2029\u2060\u2066-\u2069\ufeff]/u;
const INJECTED = ['\u001b[31m', '\u001b]0;pwned\u0007', '\r\n', '\n', '\t', '\u202e', '\u2066', '\u200f', '\u0085', '\u009b2J', '\u0000', '\u007f', '\u2028', '\ufeff', '\b'];

function hostileVocabulary(size: number): string[] {
  const pieces = makeVocabulary(size);
  // Every piece but <unk> carries a control sequence; a few are byte-fallback pieces that spell
  // ESC, a newline and the two bytes of U+009B (a C1 CSI) only when joined.
  const out = pieces.map((p, i) => (i === 0 ? p : `${p.slice(0, 2)}${INJECTED[i % INJECTED.length]}${p.slice(2)}x${i}`));
  out[1] = '<0x1B>';
  out[2] = '<0x0A>';
  out[3] = '<0xC2>';
  out[4] = '<0x9B>';
  return out;
}

describe('control characters in the vocabulary', () => {
  test('never reach the text, the words or the token pieces of any decoder', async () => {
    const pieces = hostileVocabulary(96);
    const path = join(dir, 'hostile-vocab.gguf');
    generateModel(path, {
      preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 4,
      extraKv: [{ key: 'parakeet.tokenizer.pieces', value: gv.arrStr(pieces) }, { key: 'general.name', value: gv.str('evil\u001b]0;title\u0007\r\nname\u202e') }],
    });
    const model = await Model.load(path, ONE_THREAD);
    try {
      assert.equal(model.info().name, 'evil]0;title  name', 'the model name is cleaned too');
      const audio = concat(noise(seconds(2), 0.5, 3), tone(seconds(1), 440, 0.5), noise(seconds(2), 0.3, 9));
      let tokens = 0;
      for (const decoder of ['tdt', 'ctc'] as const) {
        const r = await model.transcribe(audio, { decoder });
        tokens += r.tokens.length;
        assert.doesNotMatch(r.text, CONTROL, `${decoder} text ${JSON.stringify(r.text)}`);
        for (const w of r.words) assert.doesNotMatch(w.text, CONTROL, `${decoder} word ${JSON.stringify(w.text)}`);
        for (const t of r.tokens) assert.doesNotMatch(t.piece, CONTROL, `${decoder} piece ${JSON.stringify(t.piece)}`);
        // What is left is the pieces' printable text.
        if (r.tokens.some((t) => t.id > 4)) assert.match(r.text, /x\d+/, r.text);
      }
      assert.ok(tokens > 0, 'the random model emitted tokens (else nothing was tested)');
    } finally {
      model.dispose();
    }
  });
});
