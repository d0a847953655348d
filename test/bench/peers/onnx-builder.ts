// Builds an ONNX graph node by node with generated value names, and writes the model with every
// large initializer in one external data file (a protobuf message cannot exceed 2 GiB, and the
// 0.6B encoder in fp32 is 2.4 GB). The data file is written as initializers arrive, so the
// exporter can drop each layer's weights before loading the next.
import { closeSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { basename } from 'node:path';
import {
  type AttributeValue,
  type Dim,
  type NodeMessage,
  type TensorDataTypeCode,
  type TensorMessage,
  TensorDataType,
  type ValueInfoMessage,
  encodeModel,
} from './onnx-proto.js';

/** Node attributes by name, built with `attr`. */
export type Attrs = Readonly<Record<string, AttributeValue>>;
export const attr = {
  int: (value: number): AttributeValue => ({ kind: 'int', value }),
  ints: (value: readonly number[]): AttributeValue => ({ kind: 'ints', value }),
  float: (value: number): AttributeValue => ({ kind: 'float', value }),
};

/** Initializers smaller than this stay inline in the protobuf. */
const INLINE_LIMIT = 4096;
const ALIGN = 64;

export class OnnxGraphBuilder {
  private readonly nodes: NodeMessage[] = [];
  private readonly initializers: TensorMessage[] = [];
  private readonly inputs: ValueInfoMessage[] = [];
  private readonly outputs: ValueInfoMessage[] = [];
  private counter = 0;
  private readonly dataFd: number;
  private readonly dataTmp: string;
  private readonly dataName: string;
  private dataOffset = 0;
  private readonly constCache = new Map<string, string>();

  constructor(private readonly modelPath: string) {
    this.dataName = `${basename(modelPath)}.data`;
    this.dataTmp = `${modelPath}.data.partial`;
    this.dataFd = openSync(this.dataTmp, 'w');
  }

  private fresh(hint: string): string {
    this.counter += 1;
    return `${hint}_${this.counter}`;
  }

  input(name: string, elemType: TensorDataTypeCode, shape: readonly Dim[]): string {
    this.inputs.push({ name, elemType, shape });
    return name;
  }

  output(value: string, name: string, elemType: TensorDataTypeCode, shape: readonly Dim[]): void {
    this.node('Identity', [value], {}, name, [name]);
    this.outputs.push({ name, elemType, shape });
  }

  /** One node; returns its first output's name (or the names given). */
  node(opType: string, inputs: readonly string[], attributes: Attrs = {}, hint = opType.toLowerCase(), outputs?: readonly string[], domain?: string): string {
    const outs = outputs ?? [this.fresh(hint)];
    this.nodes.push({ opType, inputs, outputs: outs, name: this.fresh(`n_${opType}`), attributes, domain });
    return outs[0];
  }

  /** A node with several outputs. */
  nodeMulti(opType: string, inputs: readonly string[], count: number, attributes: Attrs = {}, hint = opType.toLowerCase()): string[] {
    const outs = Array.from({ length: count }, () => this.fresh(hint));
    this.node(opType, inputs, attributes, hint, outs);
    return outs;
  }

  initializer(hint: string, dims: readonly number[], data: Float32Array | Int8Array | Uint8Array | BigInt64Array | Int32Array): string {
    const dataType: TensorDataTypeCode =
      data instanceof Float32Array ? TensorDataType.FLOAT
        : data instanceof Int8Array ? TensorDataType.INT8
          : data instanceof Uint8Array ? TensorDataType.UINT8
            : data instanceof Int32Array ? TensorDataType.INT32
              : TensorDataType.INT64;
    const count = dims.reduce((a, b) => a * b, 1);
    if (count !== data.length) throw new Error(`onnx-builder: ${hint} has ${data.length} values for dims [${dims.join(', ')}]`);
    const name = this.fresh(hint);
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (bytes.length < INLINE_LIMIT) {
      this.initializers.push({ name, dims, dataType, data: { raw: bytes.slice() } });
    } else {
      const pad = (ALIGN - (this.dataOffset % ALIGN)) % ALIGN;
      if (pad) writeSync(this.dataFd, new Uint8Array(pad));
      this.dataOffset += pad;
      writeSync(this.dataFd, bytes);
      this.initializers.push({ name, dims, dataType, data: { location: this.dataName, offset: this.dataOffset, length: bytes.length } });
      this.dataOffset += bytes.length;
    }
    return name;
  }

  /** A shared int64 constant (shapes, axes, indices). */
  ints(values: readonly number[]): string {
    const key = `i64:${values.join(',')}`;
    let name = this.constCache.get(key);
    if (!name) {
      name = this.initializer('c_i64', [values.length], BigInt64Array.from(values.map(BigInt)));
      this.constCache.set(key, name);
    }
    return name;
  }

  /** A shared float scalar constant (shape [] so it broadcasts anywhere). */
  scalar(value: number): string {
    const key = `f32:${value}`;
    let name = this.constCache.get(key);
    if (!name) {
      name = this.initializer('c_f32', [], Float32Array.of(value));
      this.constCache.set(key, name);
    }
    return name;
  }

  /** Writes `<model>` and `<model>.data` (renamed into place only when complete). */
  finish(graphName: string, opset: number): void {
    closeSync(this.dataFd);
    const bytes = encodeModel({
      irVersion: 8,
      opset,
      producer: 'parakeet-desktop peer benchmark',
      graph: { name: graphName, nodes: this.nodes, initializers: this.initializers, inputs: this.inputs, outputs: this.outputs },
    });
    renameSync(this.dataTmp, `${this.modelPath}.data`);
    writeFileSync(`${this.modelPath}.partial`, bytes);
    renameSync(`${this.modelPath}.partial`, this.modelPath);
  }
}
