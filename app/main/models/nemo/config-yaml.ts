// The block-style YAML of a .nemo's model_config.yaml (OmegaConf.to_yaml / PyYAML's default dump):
// nested mappings, block sequences (indented or not under their key), `- key: value` items, plain and
// quoted scalars, folded continuation lines, `|`/`>` blocks and the empty or simple flow forms `[]`,
// `{}`, `[a, b]`. Anchors, aliases, tags and other flow forms are refused with the line they are on.
import { NemoFormatError } from './file-range.js';

export type YamlValue = null | boolean | number | string | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  readonly indent: number;
  readonly text: string;
  readonly number: number;
}

const MAX_DEPTH = 64;

function fail(line: Line | undefined, what: string): never {
  throw new NemoFormatError(`model_config.yaml${line ? ` line ${line.number}` : ''}: ${what}`);
}

/** The line without a trailing comment (a # after a space, outside quotes). */
function stripComment(text: string): string {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') {
      if (i === 0 || /[\s:[{,-]/.test(text[i - 1])) quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]))) {
      return text.slice(0, i).trimEnd();
    }
  }
  return text.trimEnd();
}

function scalar(raw: string, line: Line): YamlValue {
  const s = raw.trim();
  if (s === '' || s === '~' || s === 'null' || s === 'Null' || s === 'NULL') return null;
  if (/^(true|True|TRUE)$/.test(s)) return true;
  if (/^(false|False|FALSE)$/.test(s)) return false;
  if (s.startsWith("'")) {
    if (!s.endsWith("'") || s.length < 2) fail(line, 'an unterminated quoted string');
    return s.slice(1, -1).replace(/''/g, "'");
  }
  if (s.startsWith('"')) {
    if (!s.endsWith('"') || s.length < 2) fail(line, 'an unterminated quoted string');
    return s.slice(1, -1).replace(/\\(["\\/nt])/g, (_, c: string) => ({ n: '\n', t: '\t' })[c] ?? c);
  }
  if (s === '[]') return [];
  if (s === '{}') return {};
  if (s.startsWith('[') && s.endsWith(']')) return s.slice(1, -1).split(',').map((item) => scalar(item, line));
  if (/^[&*!{[|>@`]/.test(s)) fail(line, `'${s[0]}' (anchors, aliases, tags and nested flow collections are not read)`);
  if (/^[-+]?(0|[1-9][0-9_]*)$/.test(s)) return Number(s.replace(/_/g, ''));
  if (/^[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?$/.test(s)) return Number(s.replace(/_/g, ''));
  if (/^[-+]?\.(inf|Inf|INF)$/.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (/^\.(nan|NaN|NAN)$/.test(s)) return NaN;
  return s;
}

class Parser {
  private at = 0;
  constructor(private readonly lines: Line[]) {}

  parseDocument(): YamlValue {
    if (this.lines.length === 0) return null;
    const value = this.block(this.lines[0].indent, 0);
    if (this.at < this.lines.length) fail(this.lines[this.at], 'unexpected indentation');
    return value;
  }

  private peek(): Line | undefined {
    return this.lines[this.at];
  }

  private block(indent: number, depth: number): YamlValue {
    if (depth > MAX_DEPTH) fail(this.peek(), 'nested too deeply');
    const first = this.peek();
    if (!first) return null;
    return first.text.startsWith('- ') || first.text === '-' ? this.sequence(indent, depth) : this.mapping(indent, depth);
  }

  /** Lines deeper than `indent` after a scalar: its folded continuation (PyYAML wraps long strings). */
  private continuation(indent: number, head: string): string {
    let out = head;
    while (this.peek() && this.peek()!.indent > indent) out += ` ${this.lines[this.at++].text}`;
    return out;
  }

  /** A `|` or `>` block scalar: the deeper lines after it. */
  private blockScalar(indent: number, style: string): string {
    const parts: string[] = [];
    while (this.peek() && this.peek()!.indent > indent) parts.push(this.lines[this.at++].text);
    return style.startsWith('|') ? `${parts.join('\n')}\n` : `${parts.join(' ')}\n`;
  }

  /** What follows `key:` (or `- `): an inline scalar, a block scalar, or a nested block. */
  private valueAfter(rest: string, indent: number, line: Line, depth: number, sequenceMayShareIndent: boolean): YamlValue {
    if (rest === '') {
      const next = this.peek();
      if (next && (next.indent > indent || (sequenceMayShareIndent && next.indent === indent && (next.text.startsWith('- ') || next.text === '-')))) {
        return this.block(next.indent, depth + 1);
      }
      return null;
    }
    if (rest === '|' || rest === '>' || /^[|>][-+]?$/.test(rest)) return this.blockScalar(indent, rest);
    return scalar(this.continuation(indent, rest), line);
  }

  private mapping(indent: number, depth: number): { [key: string]: YamlValue } {
    const out: { [key: string]: YamlValue } = {};
    while (this.peek() && this.peek()!.indent === indent && !this.peek()!.text.startsWith('- ')) {
      const line = this.lines[this.at++];
      const colon = line.text.search(/:(\s|$)/);
      if (colon <= 0) fail(line, 'expected "key: value"');
      let key = line.text.slice(0, colon).trim();
      if (/^['"]/.test(key)) key = String(scalar(key, line));
      if (key === '<<' || key.startsWith('?')) fail(line, 'merge keys and complex keys are not read');
      if (Object.prototype.hasOwnProperty.call(out, key)) fail(line, `key ${JSON.stringify(key)} appears twice`);
      const value = this.valueAfter(line.text.slice(colon + 1).trim(), indent, line, depth, true);
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  private sequence(indent: number, depth: number): YamlValue[] {
    const out: YamlValue[] = [];
    while (this.peek() && this.peek()!.indent === indent && (this.peek()!.text.startsWith('- ') || this.peek()!.text === '-')) {
      const line = this.lines[this.at];
      const rest = line.text === '-' ? '' : line.text.slice(2);
      const restIndent = indent + 2 + (rest.length - rest.trimStart().length);
      const content = rest.trim();
      if (content.startsWith('- ') || /^[^'"[{][^:]*:(\s|$)/.test(content)) {
        // `- key: value` or `- - x`: the item is a block whose first line starts after the dash.
        this.lines.splice(this.at, 1, { indent: restIndent, text: content, number: line.number } as Line);
        out.push(this.block(restIndent, depth + 1));
      } else {
        this.at++;
        out.push(this.valueAfter(content, indent, line, depth, false));
      }
    }
    return out;
  }
}

export function parseConfigYaml(source: string): YamlValue {
  if (source.length > 16 << 20) throw new NemoFormatError('model_config.yaml is larger than any model configuration');
  const lines: Line[] = [];
  source.split(/\r?\n/).forEach((raw, i) => {
    if (raw.includes('\t') && /^\s*\t/.test(raw)) fail({ indent: 0, text: raw, number: i + 1 }, 'a tab in the indentation');
    const text = stripComment(raw);
    if (text.trim() === '' || text.trim() === '---' || text.trim() === '...') return;
    lines.push({ indent: text.length - text.trimStart().length, text: text.trim(), number: i + 1 });
  });
  return new Parser(lines).parseDocument();
}
