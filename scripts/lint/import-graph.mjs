// The project's import graph, for the no-import-cycle lint rule (scripts/lint/plugin.mjs): relative imports
// only (packages cannot import us back), type-only imports included (a circle of types is still a circle:
// neither module can be understood, or moved, without the other). Each file is read once per process.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import ts from 'typescript';

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.js', '.mjs'];
const importsOf = new Map();

function isFile(path) {
  return existsSync(path) && statSync(path).isFile();
}

/** The source file a relative specifier names (`./x.js` is `./x.ts` in TypeScript's NodeNext convention), or null. */
export function resolveSpecifier(fromFile, specifier) {
  if (!specifier.startsWith('.')) return null;
  const target = resolve(dirname(fromFile), specifier);
  const ext = extname(target);
  const base = ext ? target.slice(0, -ext.length) : target;
  const candidates = ext === '.js' || ext === '.mjs' || ext === '.cjs'
    ? [`${base}.ts`, `${base}.tsx`, `${base}.mts`, target]
    : ext ? [target] : [...SOURCE_EXTENSIONS.map((e) => `${target}${e}`), ...SOURCE_EXTENSIONS.map((e) => resolve(target, `index${e}`))];
  return candidates.find(isFile) ?? null;
}

/** The project files `file` imports (static, dynamic and type-only; `export … from` too). */
export function importsOfFile(file) {
  let found = importsOf.get(file);
  if (found) return found;
  found = [];
  importsOf.set(file, found);
  if (!SOURCE_EXTENSIONS.includes(extname(file))) return found;
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return found;
  }
  const info = ts.preProcessFile(text, true, true);
  for (const ref of info.importedFiles) {
    const target = resolveSpecifier(file, ref.fileName);
    if (target && !found.includes(target)) found.push(target);
  }
  return found;
}

/**
 * A shortest import path from `target` back to `from` — `[target, …, from]` — or null when `target`
 * does not lead back: with the edge from → target, that path closes a cycle.
 */
export function pathBack(target, from) {
  const previous = new Map([[target, null]]);
  const queue = [target];
  for (let i = 0; i < queue.length; i += 1) {
    const file = queue[i];
    if (file === from) {
      const path = [];
      for (let at = file; at !== null; at = previous.get(at)) path.unshift(at);
      return path;
    }
    for (const next of importsOfFile(file)) {
      if (!previous.has(next)) {
        previous.set(next, file);
        queue.push(next);
      }
    }
  }
  return null;
}

/** Forget what was read (a test that writes files between runs). */
export function clearImportGraph() {
  importsOf.clear();
}
