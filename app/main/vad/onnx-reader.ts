// Protocol-buffer decoding of the subset of ONNX (onnx.proto3) that the Silero VAD converter reads:
// ModelProto (ir_version, producer, graph, opset_import), GraphProto with nested subgraphs (If branches),
// NodeProto, AttributeProto and TensorProto (FLOAT, INT64, INT32 inline data). Field numbers are onnx.proto's.
// Unknown fields are skipped by wire type, so newer exports still parse.

export interface OnnxTensor {
  name: string;
  dims: number[];
  /** TensorProto.DataType: 1 FLOAT, 6 INT32, 7 INT64, 10 FLOAT16, 11 DOUBLE. */
  dataType: number;
  /** Values widened to float64 (FLOAT, DOUBLE, INT32, INT64); empty for other types. */
  values: Float64Array;
}

export interface OnnxAttribute {
  name: string;
  int?: number;
  float?: number;
  ints: number[];
  floats: number[];
  string?: string;
  tensor?: OnnxTensor;
  graph?: OnnxGraph;
}

export interface OnnxNode {
  opType: string;
  domain: string;
  name: string;
  inputs: string[];
  outputs: string[];
  attributes: Map<string, OnnxAttribute>;
}

export interface OnnxGraph {
  name: string;
  nodes: OnnxNode[];
  initializers: Map<string, OnnxTensor>;
  inputs: string[];
  outputs: string[];
}

export interface OnnxModel {
  irVersion: number;
  producer: string;
  producerVersion: string;
  /** Default-domain opset version (0 when absent). */
  opset: number;
  graph: OnnxGraph;
}

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LEN = 2;
const WIRE_FIXED32 = 5;

interface Field {
  number: number;
  wire: number;
  /** Varint value (WIRE_VARINT), as a bigint so int64 survives. */
  varint: bigint;
  /** Payload bytes (WIRE_LEN, FIXED32, FIXED64). */
  bytes: Uint8Array;
}

class ProtoError extends Error {}

/**
 * How deep subgraphs (If/Loop bodies) may nest: Silero's graph nests one If; a file nesting thousands deep
 * would otherwise exhaust the stack of this recursive reader.
 */
const MAX_GRAPH_DEPTH = 32;

/** The varint at `pos`: its value and the position after it. */
function varintAt(buf: Uint8Array, pos: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw new ProtoError('truncated varint');
    const byte = buf[pos++]!;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, pos];
    shift += 7n;
    if (shift > 70n) throw new ProtoError('varint longer than 10 bytes');
  }
}

/** Walks the fields of one message. */
function* fields(buf: Uint8Array): Generator<Field> {
  let pos = 0;
  const readVarint = (): bigint => {
    const [value, next] = varintAt(buf, pos);
    pos = next;
    return value;
  };
  const take = (n: number): Uint8Array => {
    if (n < 0 || pos + n > buf.length) throw new ProtoError(`field of ${n} bytes runs past the end`);
    const out = buf.subarray(pos, pos + n);
    pos += n;
    return out;
  };
  const empty = new Uint8Array(0);
  while (pos < buf.length) {
    const key = readVarint();
    const number = Number(key >> 3n);
    const wire = Number(key & 7n);
    switch (wire) {
      case WIRE_VARINT: yield { number, wire, varint: readVarint(), bytes: empty }; break;
      case WIRE_FIXED64: yield { number, wire, varint: 0n, bytes: take(8) }; break;
      case WIRE_LEN: yield { number, wire, varint: 0n, bytes: take(Number(readVarint())) }; break;
      case WIRE_FIXED32: yield { number, wire, varint: 0n, bytes: take(4) }; break;
      default: throw new ProtoError(`unsupported wire type ${wire} in field ${number}`);
    }
  }
}

const text = (b: Uint8Array): string => new TextDecoder().decode(b);
const signed64 = (v: bigint): number => Number(BigInt.asIntN(64, v));

/** Repeated integer fields arrive packed (one LEN field) or unpacked (one varint each). */
function pushInts(f: Field, out: number[]): void {
  if (f.wire === WIRE_VARINT) {
    out.push(signed64(f.varint));
    return;
  }
  for (const inner of packedVarints(f.bytes)) out.push(signed64(inner));
}

function* packedVarints(buf: Uint8Array): Generator<bigint> {
  let pos = 0;
  while (pos < buf.length) {
    const [value, next] = varintAt(buf, pos);
    pos = next;
    yield value;
  }
}

function pushFloats(f: Field, out: number[]): void {
  const view = new DataView(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength);
  for (let o = 0; o + 4 <= f.bytes.length; o += 4) out.push(view.getFloat32(o, true));
}

const FLOAT = 1;
const INT32 = 6;
const INT64 = 7;
const DOUBLE = 11;

function decodeTensor(buf: Uint8Array): OnnxTensor {
  const dims: number[] = [];
  let dataType = 0;
  let name = '';
  let raw: Uint8Array | undefined;
  const floats: number[] = [];
  const ints: number[] = [];
  let external = false;
  for (const f of fields(buf)) {
    switch (f.number) {
      case 1: pushInts(f, dims); break;
      case 2: dataType = Number(f.varint); break;
      case 4: pushFloats(f, floats); break;
      case 5: case 7: pushInts(f, ints); break;
      case 8: name = text(f.bytes); break;
      case 9: raw = f.bytes; break;
      case 14: external = Number(f.varint) === 1; break;
    }
  }
  if (external) throw new ProtoError(`tensor "${name}" keeps its data in an external file, which the converter does not read`);
  const count = dims.reduce((a, b) => a * b, 1);
  let values = new Float64Array(0);
  if (raw) {
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    const width = dataType === FLOAT || dataType === INT32 ? 4 : dataType === INT64 || dataType === DOUBLE ? 8 : 0;
    if (width !== 0) {
      if (raw.length !== count * width) throw new ProtoError(`tensor "${name}": ${raw.length} bytes for ${count} values`);
      values = new Float64Array(count);
      for (let i = 0; i < count; i++) {
        const o = i * width;
        values[i] = dataType === FLOAT ? view.getFloat32(o, true)
          : dataType === INT32 ? view.getInt32(o, true)
            : dataType === INT64 ? Number(view.getBigInt64(o, true))
              : view.getFloat64(o, true);
      }
    }
  } else if (dataType === FLOAT) {
    values = Float64Array.from(floats);
  } else if (dataType === INT32 || dataType === INT64) {
    values = Float64Array.from(ints);
  }
  return { name, dims, dataType, values };
}

function decodeAttribute(buf: Uint8Array, depth: number): OnnxAttribute {
  const a: OnnxAttribute = { name: '', ints: [], floats: [] };
  for (const f of fields(buf)) {
    switch (f.number) {
      case 1: a.name = text(f.bytes); break;
      case 2: {
        // A fixed32; anything else would be read past its field (or out of the buffer).
        if (f.bytes.length !== 4) throw new ProtoError(`attribute "${a.name}": its float is not 4 bytes`);
        a.float = new DataView(f.bytes.buffer, f.bytes.byteOffset, 4).getFloat32(0, true);
        break;
      }
      case 3: a.int = signed64(f.varint); break;
      case 4: a.string = text(f.bytes); break;
      case 5: a.tensor = decodeTensor(f.bytes); break;
      case 6: a.graph = decodeGraph(f.bytes, depth + 1); break;
      case 7: pushFloats(f, a.floats); break;
      case 8: pushInts(f, a.ints); break;
    }
  }
  return a;
}

function decodeNode(buf: Uint8Array, depth: number): OnnxNode {
  const n: OnnxNode = { opType: '', domain: '', name: '', inputs: [], outputs: [], attributes: new Map() };
  for (const f of fields(buf)) {
    switch (f.number) {
      case 1: n.inputs.push(text(f.bytes)); break;
      case 2: n.outputs.push(text(f.bytes)); break;
      case 3: n.name = text(f.bytes); break;
      case 4: n.opType = text(f.bytes); break;
      case 5: { const a = decodeAttribute(f.bytes, depth); n.attributes.set(a.name, a); break; }
      case 7: n.domain = text(f.bytes); break;
    }
  }
  return n;
}

function valueInfoName(buf: Uint8Array): string {
  for (const f of fields(buf)) if (f.number === 1) return text(f.bytes);
  return '';
}

/** A GraphProto; `depth`: how many subgraphs it is inside (the model's graph: 0). */
function decodeGraph(buf: Uint8Array, depth = 0): OnnxGraph {
  if (depth > MAX_GRAPH_DEPTH) throw new ProtoError(`subgraphs nested more than ${MAX_GRAPH_DEPTH} deep`);
  const g: OnnxGraph = { name: '', nodes: [], initializers: new Map(), inputs: [], outputs: [] };
  for (const f of fields(buf)) {
    switch (f.number) {
      case 1: g.nodes.push(decodeNode(f.bytes, depth)); break;
      case 2: g.name = text(f.bytes); break;
      case 5: { const t = decodeTensor(f.bytes); g.initializers.set(t.name, t); break; }
      case 11: g.inputs.push(valueInfoName(f.bytes)); break;
      case 12: g.outputs.push(valueInfoName(f.bytes)); break;
    }
  }
  return g;
}

/** Decodes an ONNX ModelProto; throws with what was wrong when the bytes are not one. */
export function decodeOnnxModel(bytes: Uint8Array): OnnxModel {
  const model: OnnxModel = { irVersion: 0, producer: '', producerVersion: '', opset: 0, graph: decodeGraph(new Uint8Array(0)) };
  let sawGraph = false;
  try {
    for (const f of fields(bytes)) {
      switch (f.number) {
        case 1: model.irVersion = Number(f.varint); break;
        case 2: model.producer = text(f.bytes); break;
        case 3: model.producerVersion = text(f.bytes); break;
        case 7: model.graph = decodeGraph(f.bytes); sawGraph = true; break;
        case 8: {
          let domain = '';
          let version = 0;
          for (const o of fields(f.bytes)) {
            if (o.number === 1) domain = text(o.bytes);
            else if (o.number === 2) version = Number(o.varint);
          }
          if (domain === '' || domain === 'ai.onnx') model.opset = version;
          break;
        }
      }
    }
  } catch (e) {
    if (e instanceof ProtoError) throw new Error(`not an ONNX model (protobuf: ${e.message})`);
    throw e;
  }
  if (!sawGraph || model.irVersion === 0) throw new Error('not an ONNX model (no ir_version or graph)');
  return model;
}
