// The ONNX reader of the Silero VAD converter on damaged or hostile bytes: every refusal says the file is
// not an ONNX model it can read and why, never a JavaScript engine error (a blown stack, a bad DataView).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeOnnxModel } from '../../../app/main/vad/onnx-reader.js';
import { convertSileroOnnx } from '../../../app/main/vad/silero-gguf.js';

function varint(n: number): number[] {
  const out: number[] = [];
  for (; n > 127; n = Math.floor(n / 128)) out.push((n & 127) | 128);
  out.push(n);
  return out;
}
const lenField = (field: number, body: number[]): number[] => [...varint((field << 3) | 2), ...varint(body.length), ...body];
const varintField = (field: number, value: number): number[] => [...varint(field << 3), ...varint(value)];
/** A ModelProto: ir_version 8 and `graph`. */
const model = (graph: number[]): Uint8Array => new Uint8Array([...varintField(1, 8), ...lenField(7, graph)]);

/**
 * graph { node { attribute { graph { node { attribute { … } } } } } }, `levels` deep (~6 bytes a level). Each wrap
 * only prefixes a header, so the headers are computed inside out and written outside in: linear, where wrapping
 * arrays level by level copies O(levels²) bytes (it took minutes of CI time at 20,000 levels).
 */
function nestedGraph(levels: number): number[] {
  const headers: number[][] = [];
  let innerLength = 0;
  for (let i = 0; i < levels; i++) {
    for (const field of [6, 5, 1]) {
      const header = [...varint((field << 3) | 2), ...varint(innerLength)];
      headers.push(header);
      innerLength += header.length;
    }
  }
  return headers.reverse().flat();
}

test('subgraphs nested thousands deep are refused as damaged, not with a blown stack', () => {
  const graph = nestedGraph(20000);
  // The linear builder writes what wrapping level by level writes.
  let wrapped: number[] = [];
  for (let i = 0; i < 3; i++) wrapped = lenField(1, lenField(5, lenField(6, wrapped)));
  assert.deepEqual(nestedGraph(3), wrapped);
  const bytes = model(graph);
  assert.throws(() => decodeOnnxModel(bytes), /^Error: not an ONNX model \(protobuf: subgraphs nested more than \d+ deep\)/);
  assert.throws(() => convertSileroOnnx(bytes), /not an ONNX model/);
});

test('an attribute float that is not 4 bytes is refused as damaged, not read past its field', () => {
  const name = [...Buffer.from('alpha')];
  // AttributeProto.f (field 2) is fixed32; here as a varint, then as a 2-byte field.
  for (const f of [varintField(2, 5), lenField(2, [1, 2])]) {
    const bytes = model(lenField(1, lenField(5, [...lenField(1, name), ...f])));
    assert.throws(() => decodeOnnxModel(bytes), /^Error: not an ONNX model \(protobuf: attribute "alpha": its float is not 4 bytes\)/);
  }
});

test('a well-formed small graph still decodes (nested If branches, a float attribute)', () => {
  const attrFloat = [...lenField(1, [...Buffer.from('alpha')]), ...varint((2 << 3) | 5), 0, 0, 0x80, 0x3f];
  const branch = lenField(1, lenField(4, [...Buffer.from('Relu')]));
  const ifAttr = [...lenField(1, [...Buffer.from('then_branch')]), ...lenField(6, branch)];
  const graph = [...lenField(1, [...lenField(4, [...Buffer.from('If')]), ...lenField(5, ifAttr), ...lenField(5, attrFloat)])];
  const m = decodeOnnxModel(model(graph));
  const node = m.graph.nodes[0]!;
  assert.equal(node.opType, 'If');
  assert.equal(node.attributes.get('alpha')?.float, 1);
  assert.equal(node.attributes.get('then_branch')?.graph?.nodes[0]?.opType, 'Relu');
});
