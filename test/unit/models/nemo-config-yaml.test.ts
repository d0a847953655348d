// The block YAML that OmegaConf writes into a .nemo (PyYAML's default dump), read by the importer's
// own parser: indentless sequences, nested and mapping items, quoting, folded long strings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfigYaml } from '../../../app/main/models/nemo/config-yaml.js';

test('PyYAML block forms as OmegaConf writes them', () => {
  const yaml = [
    'name: FastConformer-TDT  # a comment',
    'encoder:',
    '  d_model: 1024',
    '  att_context_size:',
    '  - - 70',
    '    - 13',
    '  - - 70',
    '    - 0',
    '  dither: 1.0e-05',
    '  conv_context_size: null',
    '  xscaling: false',
    'labels:',
    "- '''s'",
    '- "▁the"',
    '- a # b',
    'optim:',
    '  sched:',
    '  - name: CosineAnnealing',
    '    warmup_steps: 10000',
    'description: a long line that PyYAML',
    '  wraps onto the next line',
    'empty: []',
    'pair: [1, two]',
    'text: |',
    '  line one',
    '  line two',
    'inf: .inf',
  ].join('\n');
  assert.deepEqual(parseConfigYaml(yaml), {
    name: 'FastConformer-TDT',
    encoder: { d_model: 1024, att_context_size: [[70, 13], [70, 0]], dither: 1e-5, conv_context_size: null, xscaling: false },
    labels: ["'s", '▁the', 'a'],
    optim: { sched: [{ name: 'CosineAnnealing', warmup_steps: 10000 }] },
    description: 'a long line that PyYAML wraps onto the next line',
    empty: [],
    pair: [1, 'two'],
    text: 'line one\nline two\n',
    inf: Infinity,
  });
});

test('what it does not read is refused with the line', () => {
  assert.throws(() => parseConfigYaml('a: &x 1\nb: *x\n'), /line 1: '&'/);
  assert.throws(() => parseConfigYaml('a: 1\na: 2\n'), /line 2: key "a" appears twice/);
  assert.throws(() => parseConfigYaml('a: {b: 1}\n'), /line 1: '\{'/);
  assert.throws(() => parseConfigYaml('<<: 1\n'), /merge keys/);
});
