// `.nemo` → parakeet.cpp GGUF without Python: the tar is read in place (config, tokenizer, the
// PyTorch zip checkpoint), the state_dict's pickle goes through a restricted unpickler, NeMo's
// config is mapped onto the GGUF keys as parakeet.cpp's converter maps it, and every tensor is read,
// converted and written one at a time (memory: one tensor, not the model). The output appears only
// complete: it is written to OUT.partial and renamed; on any error or cancel nothing is left.
import { open, rename, rm } from 'node:fs/promises';
import { NEMO_WEIGHT_TYPES, type NemoWeightType } from '../../../ipc/contract.js';
import { basename } from 'node:path';
import { parseConfigYaml } from './config-yaml.js';
import { FileRange, NemoFormatError } from './file-range.js';
import { type GgufOutTensor, writeGgufFile } from './gguf-out.js';
import { planNemoModel } from './nemo-config.js';
import { sentencePiecePieces } from './sentencepiece-pieces.js';
import { isTensorRef, type TensorRef, unpickleStateDict } from './state-dict-pickle.js';
import { listTar, type TarMember } from './tar.js';
import { GGML_F16, GGML_F32, GGML_Q8_0, encodeF16, encodeF32, encodeQ8_0, isFloatStorage, storageBytes, storageSpan, tensorValues } from './tensor-data.js';
import { listZip, type ZipEntry } from './zip.js';

export { NemoFormatError };

export { NEMO_WEIGHT_TYPES, type NemoWeightType };

export interface NemoImportOptions {
  readonly weightType?: NemoWeightType;
  readonly signal?: AbortSignal;
  /** 0..1 by tensor bytes written. */
  readonly onProgress?: (fraction: number) => void;
}

export interface NemoImportResult {
  readonly arch: string;
  readonly tensors: number;
  readonly vocabulary: number;
}

const MAX_SMALL_MEMBER = 64 << 20;  // config, tokenizer, data.pkl

/** NeMo state_dict entries the converter leaves out: training state and buffers the engine rebuilds. */
function isDropped(name: string): boolean {
  return /\.num_batches_tracked$/.test(name) || name === 'encoder.pos_enc.pe' || /^(spec_augmentation|loss|ctc_loss|wer|transcriber)\./.test(name);
}

/** The matmul weights parakeet.cpp may quantize (spec §1.7). */
function isQuantizable(name: string): boolean {
  return (
    /^encoder\.layers\.\d+\.(feed_forward[12]\.linear[12]|self_attn\.linear_(q|k|v|out|pos))\.weight$/.test(name) ||
    name === 'encoder.pre_encode.out.weight' || name === 'joint.enc.weight' || name === 'joint.pred.weight'
  );
}

function storedType(name: string, ne: readonly number[], weightType: NemoWeightType): number {
  if (weightType === 'f32' || !isQuantizable(name)) return GGML_F32;
  if (weightType === 'f16') return GGML_F16;
  return ne[0] % 32 === 0 ? GGML_Q8_0 : GGML_F32;
}

function byteSize(type: number, count: number): number {
  return type === GGML_F32 ? count * 4 : type === GGML_F16 ? count * 2 : (count / 32) * 34;
}

async function smallMember(member: TarMember | ZipEntry, what: string): Promise<Uint8Array> {
  if (member.data.size > MAX_SMALL_MEMBER) throw new NemoFormatError(`${what} declares ${member.data.size} bytes, more than a model's ${what} ever holds`);
  return member.data.read(0, member.data.size);
}

function findMember(members: readonly TarMember[], name: string): TarMember | undefined {
  return members.find((m) => basename(m.name) === name);
}

/** The checkpoint's tensors and, per storage key, its zip entry (checked to hold the storage's bytes). */
async function readCheckpoint(weights: TarMember): Promise<{ tensors: Map<string, TensorRef>; storages: Map<string, ZipEntry> }> {
  const entries = await listZip(weights.data);
  const pickle = entries.find((e) => e.name === 'data.pkl' || e.name.endsWith('/data.pkl'));
  if (!pickle) throw new NemoFormatError('model_weights.ckpt has no data.pkl: not a PyTorch checkpoint');
  const prefix = pickle.name.slice(0, -'data.pkl'.length);
  let dict = unpickleStateDict(await smallMember(pickle, 'data.pkl'));
  const nested = dict.get('state_dict');
  if (nested instanceof Map) dict = nested;
  const tensors = new Map<string, TensorRef>();
  const storages = new Map<string, ZipEntry>();
  const byName = new Map(entries.map((e) => [e.name, e]));
  for (const [name, value] of dict) {
    if (!isTensorRef(value)) continue;
    const { key, dtype, numel } = value.storage;
    const entry = byName.get(`${prefix}data/${key}`);
    if (!entry) throw new NemoFormatError(`tensor ${JSON.stringify(name)}: its storage data/${key} is missing from the checkpoint`);
    if (storageBytes(dtype, numel) > entry.data.size) {
      throw new NemoFormatError(`tensor ${JSON.stringify(name)}: its storage declares ${numel} ${dtype} values, more than the ${entry.data.size} bytes stored`);
    }
    tensors.set(name, value);
    storages.set(key, entry);
  }
  if (tensors.size === 0) throw new NemoFormatError('model_weights.ckpt holds no tensors');
  return { tensors, storages };
}

export async function importNemo(input: string, output: string, options: NemoImportOptions = {}): Promise<NemoImportResult> {
  const weightType = options.weightType ?? 'f32';
  const checkCancelled = (): void => {
    if (options.signal?.aborted) throw new NemoFormatError('the import was cancelled');
  };
  const handle = await open(input, 'r');
  const partial = `${output}.partial`;
  let wrote = false;
  try {
    const { size } = await handle.stat();
    const archive = new FileRange(handle, 0, size, basename(input));
    const head = await archive.read(0, Math.min(size, 2));
    if (head[0] === 0x1f && head[1] === 0x8b) throw new NemoFormatError(`${basename(input)} is gzip-compressed; unpack it with gunzip first (a .nemo is a plain tar)`);
    const members = await listTar(archive);
    const configMember = findMember(members, 'model_config.yaml');
    const weights = findMember(members, 'model_weights.ckpt');
    if (!configMember || !weights) throw new NemoFormatError(`${basename(input)} is not a .nemo: it has no model_config.yaml and model_weights.ckpt`);
    const config = parseConfigYaml(new TextDecoder('utf-8').decode(await smallMember(configMember, 'model_config.yaml')));
    const { tensors, storages } = await readCheckpoint(weights);
    checkCancelled();

    const probe = planNemoModel(config, ['?'], new Set(tensors.keys()));
    const tokenizer = findMember(members, probe.tokenizerModel) ?? members.find((m) => m.name.endsWith('tokenizer.model'));
    if (!tokenizer) throw new NemoFormatError(`the tokenizer model ${JSON.stringify(probe.tokenizerModel)} is not in the archive`);
    const pieces = sentencePiecePieces(await smallMember(tokenizer, 'tokenizer model'));
    const plan = planNemoModel(config, pieces, new Set(tensors.keys()));

    const planned: GgufOutTensor[] = [];
    let total = 0;
    for (const [name, tensor] of tensors) {
      if (isDropped(name) || !isFloatStorage(tensor.storage.dtype)) continue;
      const ne = tensor.shape.length === 0 ? [1] : [...tensor.shape].reverse();
      const count = ne.reduce((a, b) => a * b, 1);
      const type = storedType(name, ne, weightType);
      const entry = storages.get(tensor.storage.key) as ZipEntry;
      total += count;
      planned.push({
        name, ne, type, byteSize: byteSize(type, count),
        bytes: async () => {
          const { first, end, rebased } = storageSpan(tensor);
          const elementBytes = storageBytes(tensor.storage.dtype, 1);
          const values = tensorValues(rebased, await entry.data.read(first * elementBytes, (end - first) * elementBytes));
          return type === GGML_F32 ? encodeF32(values) : type === GGML_F16 ? encodeF16(values) : encodeQ8_0(values);
        },
      });
    }
    const out = await open(partial, 'w');
    wrote = true;
    let done = 0;
    try {
      await writeGgufFile(out, plan.kv, planned, (i) => {
        done += planned[i].ne.reduce((a, b) => a * b, 1);
        options.onProgress?.(total > 0 ? done / total : 1);
        checkCancelled();
      });
    } finally {
      await out.close();
    }
    await rename(partial, output);
    wrote = false;
    return { arch: plan.arch, tensors: planned.length, vocabulary: pieces.length };
  } finally {
    await handle.close();
    if (wrote) await rm(partial, { force: true });
  }
}
