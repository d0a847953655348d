// A .nemo is untrusted input: pickles that would run code or use opcodes a state_dict never needs,
// tar members that point outside the archive or are links, storages that declare more bytes than
// they hold, truncated or compressed archives, and models the engine cannot run are refused with a
// message that names the problem — and nothing is written (issue 46, item 5).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, test } from 'node:test';
import { importNemo } from '../../../app/main/models/nemo/nemo-import.js';
import { readGguf } from '../../support/gguf/reader.js';
import { generateModel } from '../../support/model/generate.js';
import { modelConfigYaml, PickleWriter, stateDictPickle, writeNemoArchive } from '../../support/model/nemo-archive.js';

const dir = mkdtempSync(join(tmpdir(), 'nemo-hostile-'));
const source = join(dir, 'source.gguf');
generateModel(source, { preset: 'tiny', arch: 'hybrid_tdt_ctc', seed: 2 });
const config = modelConfigYaml(readGguf(source), '5f2c6697eb_tokenizer.model');

/** Imports `nemo` and asserts it is refused with `message`, leaving no output. */
async function assertRefused(nemo: string, message: RegExp): Promise<void> {
  const out = join(dir, 'out.gguf');
  await assert.rejects(importNemo(nemo, out), (error: Error & { code?: string }) => {
    assert.equal(error.code, 'NEMO_INVALID', error.message);
    assert.match(error.message, message);
    return true;
  });
  assert.ok(!existsSync(out) && !existsSync(`${out}.partial`), 'nothing written');
}

function archive(name: string, options: Parameters<typeof writeNemoArchive>[2] = {}): string {
  const path = join(dir, name);
  writeNemoArchive(source, path, options);
  return path;
}

describe('a hostile .nemo is refused and nothing is written', () => {
  test('a pickle that imports os.system to run a command', async () => {
    const pickle = (): Uint8Array => new PickleWriter().op(0x80, 2).global('os', 'system').unicode('touch /tmp/pwned').op(0x85, 0x52, 0x2e).bytes();
    await assertRefused(archive('os-system.nemo', { pickle }), /imports "os\.system", which a state_dict never does: refused \(a pickle can run code\)/);
  });

  test('builtins.eval through STACK_GLOBAL', async () => {
    const pickle = (): Uint8Array => new PickleWriter().op(0x80, 4).unicode('builtins').unicode('eval').op(0x93).unicode('1+1').op(0x85, 0x52, 0x2e).bytes();
    await assertRefused(archive('eval.nemo', { pickle }), /imports "builtins\.eval"/);
  });

  for (const [label, opcode] of [['INST', 0x69], ['OBJ', 0x6f], ['NEWOBJ', 0x81], ['EXT1', 0x82]] as const) {
    test(`opcode ${label}`, async () => {
      const pickle = (): Uint8Array => new PickleWriter().op(0x80, 2, 0x28, opcode, 0x2e).bytes();
      await assertRefused(archive(`op-${label}.nemo`, { pickle }), new RegExp(`opcode 0x${opcode.toString(16)} \\(${label}\\) at byte 3, which a state_dict never needs: refused`));
    });
  }

  test('a tar member whose name climbs out of the archive', async () => {
    const path = archive('traversal.nemo', { extraMembers: [{ name: '../../.bashrc', data: Buffer.from('echo pwned') }] });
    await assertRefused(path, /points outside the archive \(path traversal\)/);
  });

  test('a link member', async () => {
    await assertRefused(archive('link.nemo', { extraMembers: [{ name: 'model_config.yaml.lnk', data: new Uint8Array(0), type: '2' }] }), /is a link/);
  });

  test('a storage that declares far more values than it holds', async () => {
    const pickle = (tensors: Parameters<typeof stateDictPickle>[0]): Uint8Array =>
      stateDictPickle(tensors.map((t, i) => (i === 3 ? { ...t, declaredNumel: 2 ** 40 } : t)));
    await assertRefused(archive('huge.nemo', { pickle }), /declares 1099511627776 float32 values, more than the \d+ bytes stored/);
  });

  test('a truncated archive', async () => {
    const whole = readFileSync(archive('whole.nemo'));
    const cut = join(dir, 'cut.nemo');
    writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.6)));
    await assertRefused(cut, /past the end of cut\.nemo \(\d+ bytes\): truncated or corrupt/);
  });

  test('a gzip-compressed archive', async () => {
    const gz = join(dir, 'gz.nemo');
    writeFileSync(gz, gzipSync(readFileSync(archive('plain.nemo'))));
    await assertRefused(gz, /gzip-compressed; unpack it with gunzip first/);
  });

  test('a file that is not a tar at all', async () => {
    const junk = join(dir, 'junk.nemo');
    writeFileSync(junk, Buffer.alloc(4096, 0x41));
    await assertRefused(junk, /not a \.nemo \(tar\) archive, or a damaged one/);
  });
});

describe('models the engine cannot run are refused by name', () => {
  test('a speaker-diarization checkpoint', async () => {
    const sortformer = config.replace(/^target: .*$/m, 'target: nemo.collections.asr.models.sortformer_diar_models.SortformerEncLabelModel');
    await assertRefused(archive('sortformer.nemo', { config: sortformer }), /a speaker-diarization model \(nemo\.collections\.asr\.models\.sortformer_diar_models\.SortformerEncLabelModel\): it says who speaks when.*convert it with parakeet\.cpp's converter/);
  });

  test('a speaker-verification checkpoint', async () => {
    const titanet = config.replace(/^target: .*$/m, 'target: nemo.collections.asr.models.label_models.EncDecSpeakerLabelModel');
    await assertRefused(archive('titanet.nemo', { config: titanet }), /a speaker or classification model \(.*EncDecSpeakerLabelModel\), not speech recognition; import a Parakeet ASR checkpoint/);
  });

  test('a non-FastConformer encoder', async () => {
    const squeezeformer = config.replace('nemo.collections.asr.modules.ConformerEncoder', 'nemo.collections.asr.modules.SqueezeformerEncoder');
    await assertRefused(archive('squeeze.nemo', { config: squeezeformer }), /not NeMo's ConformerEncoder: only FastConformer/);
  });

  test('a config with a YAML alias', async () => {
    await assertRefused(archive('alias.nemo', { config: `${config}extra: *anchor\n` }), /anchors, aliases, tags/);
  });
});
