// Protocol-buffer encoding of the subset of ONNX (onnx.proto3, IR version 8) that the peer
// benchmark's encoder export needs: ModelProto, GraphProto, NodeProto, AttributeProto,
// TensorProto (inline or external data), ValueInfoProto with a tensor type.
// Field numbers are onnx.proto's. Repeated scalars are written unpacked (valid proto2 and proto3).

export const TensorDataType = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7 } as const;
export type TensorDataTypeCode = (typeof TensorDataType)[keyof typeof TensorDataType];

export type AttributeValue =
  | { kind: 'float'; value: number }
  | { kind: 'int'; value: number }
  | { kind: 'ints'; value: readonly number[] }
  | { kind: 'string'; value: string }
  | { kind: 'tensor'; value: TensorMessage };

export interface TensorMessage {
  name: string;
  dims: readonly number[];
  dataType: TensorDataTypeCode;
  /** Inline bytes, or a reference into the external data file (location relative to the model). */
  data: { raw: Uint8Array } | { location: string; offset: number; length: number };
}

export interface NodeMessage {
  opType: string;
  inputs: readonly string[];
  outputs: readonly string[];
  name: string;
  domain?: string;
  attributes?: Readonly<Record<string, AttributeValue>>;
}

/** A dimension is a fixed size or a symbolic name (a dynamic axis). */
export type Dim = number | string;

export interface ValueInfoMessage {
  name: string;
  elemType: TensorDataTypeCode;
  shape: readonly Dim[];
}

export interface GraphMessage {
  name: string;
  nodes: readonly NodeMessage[];
  initializers: readonly TensorMessage[];
  inputs: readonly ValueInfoMessage[];
  outputs: readonly ValueInfoMessage[];
}

export interface ModelMessage {
  irVersion: number;
  opset: number;
  producer: string;
  graph: GraphMessage;
}

const WIRE_VARINT = 0;
const WIRE_LEN = 2;
const WIRE_FIXED32 = 5;

/** Appends fields to a growing list of chunks; `bytes()` joins them. */
class ProtoWriter {
  private readonly chunks: Uint8Array[] = [];

  private varint(value: bigint): void {
    // Negative int64 values are two's complement over 64 bits (10 bytes), as protobuf writes them.
    let v = BigInt.asUintN(64, value);
    const out: number[] = [];
    do {
      let byte = Number(v & 0x7fn);
      v >>= 7n;
      if (v !== 0n) byte |= 0x80;
      out.push(byte);
    } while (v !== 0n);
    this.chunks.push(Uint8Array.from(out));
  }

  private tag(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire));
  }

  int(field: number, value: number): this {
    if (!Number.isSafeInteger(value)) throw new Error(`onnx-proto: ${value} is not an integer`);
    this.tag(field, WIRE_VARINT);
    this.varint(BigInt(value));
    return this;
  }

  float(field: number, value: number): this {
    this.tag(field, WIRE_FIXED32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.chunks.push(b);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, WIRE_LEN);
    this.varint(BigInt(value.length));
    this.chunks.push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value));
  }

  message(field: number, body: ProtoWriter): this {
    return this.bytes(field, body.toBytes());
  }

  toBytes(): Uint8Array {
    let n = 0;
    for (const c of this.chunks) n += c.length;
    const out = new Uint8Array(n);
    let o = 0;
    for (const c of this.chunks) {
      out.set(c, o);
      o += c.length;
    }
    return out;
  }
}

function tensorProto(t: TensorMessage): ProtoWriter {
  const w = new ProtoWriter();
  for (const d of t.dims) w.int(1, d);
  w.int(2, t.dataType);
  w.string(8, t.name);
  if ('raw' in t.data) {
    w.bytes(9, t.data.raw);
  } else {
    const entry = (key: string, value: string) => new ProtoWriter().string(1, key).string(2, value);
    w.message(13, entry('location', t.data.location));
    w.message(13, entry('offset', String(t.data.offset)));
    w.message(13, entry('length', String(t.data.length)));
    w.int(14, 1); // data_location = EXTERNAL
  }
  return w;
}

// AttributeProto.AttributeType
const ATTR_FLOAT = 1;
const ATTR_INT = 2;
const ATTR_STRING = 3;
const ATTR_TENSOR = 4;
const ATTR_INTS = 7;

function attributeProto(name: string, a: AttributeValue): ProtoWriter {
  const w = new ProtoWriter().string(1, name);
  switch (a.kind) {
    case 'float': return w.float(2, a.value).int(20, ATTR_FLOAT);
    case 'int': return w.int(3, a.value).int(20, ATTR_INT);
    case 'string': return w.string(4, a.value).int(20, ATTR_STRING);
    case 'tensor': return w.message(5, tensorProto(a.value)).int(20, ATTR_TENSOR);
    case 'ints':
      for (const v of a.value) w.int(8, v);
      return w.int(20, ATTR_INTS);
  }
}

function nodeProto(n: NodeMessage): ProtoWriter {
  const w = new ProtoWriter();
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  w.string(3, n.name).string(4, n.opType);
  for (const [name, a] of Object.entries(n.attributes ?? {})) w.message(5, attributeProto(name, a));
  if (n.domain) w.string(7, n.domain);
  return w;
}

function valueInfoProto(v: ValueInfoMessage): ProtoWriter {
  const shape = new ProtoWriter();
  for (const d of v.shape) {
    const dim = new ProtoWriter();
    if (typeof d === 'number') dim.int(1, d);
    else dim.string(2, d);
    shape.message(1, dim);
  }
  const tensorType = new ProtoWriter().int(1, v.elemType).message(2, shape);
  const type = new ProtoWriter().message(1, tensorType);
  return new ProtoWriter().string(1, v.name).message(2, type);
}

export function encodeModel(m: ModelMessage): Uint8Array {
  const g = new ProtoWriter();
  for (const n of m.graph.nodes) g.message(1, nodeProto(n));
  g.string(2, m.graph.name);
  for (const t of m.graph.initializers) g.message(5, tensorProto(t));
  for (const i of m.graph.inputs) g.message(11, valueInfoProto(i));
  for (const o of m.graph.outputs) g.message(12, valueInfoProto(o));
  const opset = new ProtoWriter().string(1, '').int(2, m.opset);
  const msOpset = new ProtoWriter().string(1, 'com.microsoft').int(2, 1);
  return new ProtoWriter()
    .int(1, m.irVersion)
    .string(2, m.producer)
    .message(7, g)
    .message(8, opset)
    .message(8, msOpset)
    .toBytes();
}
