// A restricted unpickler for the one thing a checkpoint's data.pkl may hold: a state_dict of tensors
// (torch.save: OrderedDict of torch._utils._rebuild_tensor_v2 over persistent storages). Only the
// opcodes and globals such a pickle uses are accepted; anything else — code execution through
// REDUCE of another global, INST/OBJ, extensions — is refused by name before it does anything,
// because a .nemo from the internet is untrusted input. Nothing is ever called or imported.
import { NemoFormatError } from './file-range.js';

/** A torch storage's element type, by its pickled class name. */
export type StorageDtype = 'float32' | 'float16' | 'bfloat16' | 'float64' | 'int64' | 'int32' | 'int16' | 'int8' | 'uint8' | 'bool';

const STORAGE_CLASSES: Readonly<Record<string, StorageDtype>> = {
  FloatStorage: 'float32', HalfStorage: 'float16', BFloat16Storage: 'bfloat16', DoubleStorage: 'float64', LongStorage: 'int64',
  IntStorage: 'int32', ShortStorage: 'int16', CharStorage: 'int8', ByteStorage: 'uint8', BoolStorage: 'bool',
};

export interface StorageRef {
  readonly kind: 'storage';
  readonly dtype: StorageDtype;
  /** Entry name under the archive's data/ folder. */
  readonly key: string;
  readonly numel: number;
}

export interface TensorRef {
  readonly kind: 'tensor';
  readonly storage: StorageRef;
  readonly offset: number;
  readonly shape: readonly number[];
  readonly stride: readonly number[];
}

type Global = { readonly kind: 'global'; readonly name: string };
type Value = null | boolean | number | bigint | string | Value[] | Map<string, Value> | TensorRef | StorageRef | Global | typeof MARK;
const MARK: unique symbol = Symbol('mark');

const ALLOWED_GLOBALS = new Set([
  'collections OrderedDict', 'torch._utils _rebuild_tensor_v2', 'torch._utils _rebuild_parameter',
  ...Object.keys(STORAGE_CLASSES).map((c) => `torch ${c}`),
]);

const MAX_STACK = 1_000_000;
const MAX_DIMS = 8;

/** Pickle's names for the opcodes that build or call arbitrary objects (pickletools), for the refusal message. */
const REFUSED_OPCODE_NAMES: ReadonlyMap<number, string> = new Map([
  [0x69, 'INST'], [0x6f, 'OBJ'], [0x81, 'NEWOBJ'], [0x92, 'NEWOBJ_EX'], [0x82, 'EXT1'], [0x83, 'EXT2'], [0x84, 'EXT4'],
  [0x50, 'PERSID'], [0x96, 'BYTEARRAY8'], [0x97, 'NEXT_BUFFER'], [0x98, 'READONLY_BUFFER'],
]);

function isGlobal(v: Value, name: string): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Map) && v.kind === 'global' && v.name === name;
}

function asInt(v: Value, what: string): number {
  if (typeof v === 'bigint' && v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= 0n) return Number(v);
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new NemoFormatError(`checkpoint pickle: ${what} is not a non-negative integer`);
  return v;
}

function asIntList(v: Value, what: string): number[] {
  if (!Array.isArray(v) || v.length > MAX_DIMS) throw new NemoFormatError(`checkpoint pickle: ${what} is not a shape of at most ${MAX_DIMS} dimensions`);
  return v.map((d) => asInt(d, what));
}

/** persistent_load: ('storage', <storage class>, key, location, numel). */
function storageRef(pid: Value): StorageRef {
  if (!Array.isArray(pid) || pid.length !== 5 || pid[0] !== 'storage') throw new NemoFormatError('checkpoint pickle: a persistent id that is not a torch storage');
  const cls = pid[1];
  const className = typeof cls === 'object' && cls !== null && !Array.isArray(cls) && !(cls instanceof Map) && cls.kind === 'global' ? cls.name.replace(/^torch /, '') : '';
  const dtype = STORAGE_CLASSES[className];
  if (!dtype || typeof pid[2] !== 'string' || !/^[0-9A-Za-z_]+$/.test(pid[2])) throw new NemoFormatError('checkpoint pickle: a storage of an unknown type or key');
  return { kind: 'storage', dtype, key: pid[2], numel: asInt(pid[4], 'storage size') };
}

function reduce(callable: Value, args: Value): Value {
  if (!Array.isArray(args)) throw new NemoFormatError('checkpoint pickle: REDUCE without an argument tuple');
  if (isGlobal(callable, 'collections OrderedDict')) return new Map<string, Value>();
  if (isGlobal(callable, 'torch._utils _rebuild_tensor_v2')) {
    const storage = args[0];
    if (typeof storage !== 'object' || storage === null || Array.isArray(storage) || storage instanceof Map || storage.kind !== 'storage') {
      throw new NemoFormatError('checkpoint pickle: a tensor without a storage');
    }
    return { kind: 'tensor', storage, offset: asInt(args[1], 'storage offset'), shape: asIntList(args[2], 'tensor shape'), stride: asIntList(args[3], 'tensor stride') };
  }
  if (isGlobal(callable, 'torch._utils _rebuild_parameter')) return args[0];
  throw new NemoFormatError('checkpoint pickle: REDUCE of something other than a tensor or an OrderedDict');
}

/** The pickled value of data.pkl: for a state_dict, a Map from names to TensorRef. */
export function unpickleStateDict(bytes: Uint8Array): Map<string, Value> {
  const data = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = new TextDecoder('utf-8', { fatal: true });
  const stack: Value[] = [];
  const memo = new Map<number, Value>();
  let at = 0;
  const need = (n: number): number => {
    if (n < 0 || at + n > bytes.length) throw new NemoFormatError('checkpoint pickle: cut short (truncated data.pkl)');
    const start = at;
    at += n;
    return start;
  };
  const push = (v: Value): void => {
    if (stack.length >= MAX_STACK) throw new NemoFormatError('checkpoint pickle: too deep');
    stack.push(v);
  };
  const pop = (): Value => {
    if (stack.length === 0) throw new NemoFormatError('checkpoint pickle: stack underflow');
    return stack.pop() as Value;
  };
  const popMark = (): Value[] => {
    const m = stack.lastIndexOf(MARK);
    if (m < 0) throw new NemoFormatError('checkpoint pickle: no MARK');
    const items = stack.splice(m + 1);
    stack.pop();
    return items;
  };
  const top = (): Value => {
    if (stack.length === 0) throw new NemoFormatError('checkpoint pickle: stack underflow');
    return stack[stack.length - 1];
  };
  const str = (n: number): string => text.decode(bytes.subarray(need(n), at));
  const setItems = (target: Value, items: Value[]): void => {
    if (!(target instanceof Map)) throw new NemoFormatError('checkpoint pickle: SETITEM on something that is not a dict');
    for (let i = 0; i + 1 < items.length; i += 2) {
      if (typeof items[i] !== 'string') throw new NemoFormatError('checkpoint pickle: a dict key that is not a string');
      target.set(items[i] as string, items[i + 1]);
    }
  };
  const global = (name: string): void => {
    if (!ALLOWED_GLOBALS.has(name)) {
      const dotted = name.slice(0, 80).replace(' ', '.');
      throw new NemoFormatError(`checkpoint pickle imports ${JSON.stringify(dotted)}, which a state_dict never does: refused (a pickle can run code)`);
    }
    push({ kind: 'global', name });
  };

  for (;;) {
    const op = bytes[need(1)];
    switch (op) {
      case 0x80: need(1); break; // PROTO
      case 0x95: need(8); break; // FRAME
      case 0x2e: { // STOP
        const result = pop();
        if (!(result instanceof Map)) throw new NemoFormatError('checkpoint pickle: the top-level value is not a dict (state_dict)');
        return result;
      }
      case 0x7d: push(new Map()); break; // EMPTY_DICT
      case 0x5d: push([]); break; // EMPTY_LIST
      case 0x29: push([]); break; // EMPTY_TUPLE
      case 0x28: push(MARK); break; // MARK
      case 0x71: memo.set(bytes[need(1)], top()); break; // BINPUT
      case 0x72: memo.set(data.getUint32(need(4), true), top()); break; // LONG_BINPUT
      case 0x94: memo.set(memo.size, top()); break; // MEMOIZE
      case 0x68: case 0x6a: { // BINGET, LONG_BINGET
        const key = op === 0x68 ? bytes[need(1)] : data.getUint32(need(4), true);
        if (!memo.has(key)) throw new NemoFormatError('checkpoint pickle: a memo reference to nothing');
        push(memo.get(key) as Value);
        break;
      }
      case 0x63: { // GLOBAL: "module\nname\n"
        const end1 = bytes.indexOf(0x0a, at);
        const end2 = end1 < 0 ? -1 : bytes.indexOf(0x0a, end1 + 1);
        if (end2 < 0 || end2 - at > 200) throw new NemoFormatError('checkpoint pickle: a malformed GLOBAL');
        const module = str(end1 - at);
        need(1);
        const name = str(end2 - at);
        need(1);
        global(`${module} ${name}`);
        break;
      }
      case 0x93: { // STACK_GLOBAL
        const name = pop();
        const module = pop();
        if (typeof name !== 'string' || typeof module !== 'string') throw new NemoFormatError('checkpoint pickle: a malformed STACK_GLOBAL');
        global(`${module} ${name}`);
        break;
      }
      case 0x58: push(str(data.getUint32(need(4), true))); break; // BINUNICODE
      case 0x8c: push(str(bytes[need(1)])); break; // SHORT_BINUNICODE
      case 0x4a: push(data.getInt32(need(4), true)); break; // BININT
      case 0x4b: push(bytes[need(1)]); break; // BININT1
      case 0x4d: push(data.getUint16(need(2), true)); break; // BININT2
      case 0x8a: { // LONG1
        const n = bytes[need(1)];
        if (n > 8) throw new NemoFormatError('checkpoint pickle: an integer wider than 64 bits');
        let v = 0n;
        const start = need(n);
        for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[start + i]);
        if (n > 0 && bytes[start + n - 1] & 0x80) v -= 1n << BigInt(8 * n);
        push(v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v);
        break;
      }
      case 0x47: push(data.getFloat64(need(8), false)); break; // BINFLOAT
      case 0x4e: push(null); break; // NONE
      case 0x88: push(true); break; // NEWTRUE
      case 0x89: push(false); break; // NEWFALSE
      case 0x74: push(popMark()); break; // TUPLE
      case 0x85: push([pop()]); break; // TUPLE1
      case 0x86: { const b = pop(); push([pop(), b]); break; } // TUPLE2
      case 0x87: { const c = pop(); const b = pop(); push([pop(), b, c]); break; } // TUPLE3
      case 0x51: push(storageRef(pop())); break; // BINPERSID
      case 0x52: { const args = pop(); push(reduce(pop(), args)); break; } // REDUCE
      case 0x62: pop(); break; // BUILD: an OrderedDict's state (its _metadata) carries no weights
      case 0x73: { const v = pop(); const k = pop(); setItems(top(), [k, v]); break; } // SETITEM
      case 0x75: { const items = popMark(); setItems(top(), items); break; } // SETITEMS
      case 0x61: { const v = pop(); const list = top(); if (!Array.isArray(list)) throw new NemoFormatError('checkpoint pickle: APPEND to a non-list'); list.push(v); break; } // APPEND
      case 0x65: { const items = popMark(); const list = top(); if (!Array.isArray(list)) throw new NemoFormatError('checkpoint pickle: APPENDS to a non-list'); list.push(...items); break; } // APPENDS
      default:
        throw new NemoFormatError(
          `checkpoint pickle uses opcode 0x${op.toString(16).padStart(2, '0')}${REFUSED_OPCODE_NAMES.has(op) ? ` (${REFUSED_OPCODE_NAMES.get(op)})` : ''} ` +
            `at byte ${at - 1}, which a state_dict never needs: refused (a pickle can run code)`,
        );
    }
  }
}

export function isTensorRef(v: unknown): v is TensorRef {
  return typeof v === 'object' && v !== null && (v as { kind?: unknown }).kind === 'tensor';
}
