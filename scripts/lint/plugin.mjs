// The project's own ESLint rules (eslint.config.js registers them as `local/…`). eslint-plugin-import and
// import-x are not dependencies; the one rule needed from them is small enough to keep here.
//
//   local/no-import-cycle   an import whose target leads back to the importing file (relative imports,
//                           type-only ones included; the message names the whole circle)
import { relative } from 'node:path';
import { pathBack, resolveSpecifier } from './import-graph.mjs';

/** @type {import('eslint').Rule.RuleModule} */
const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid imports that close a cycle of modules (type-only imports count).' },
    schema: [],
    messages: {
      cycle: 'Import cycle: {{circle}}. Move what both sides need to a module below them (types/ for shared shapes), or invert the dependency.',
    },
  },
  create(context) {
    const file = context.filename;
    const cwd = context.cwd;
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string') return;
      const target = resolveSpecifier(file, source.value);
      if (!target) return;
      const back = target === file ? [file] : pathBack(target, file);
      if (!back) return;
      const circle = [file, ...back].map((f) => relative(cwd, f)).join(' → ');
      context.report({ node: source, messageId: 'cycle', data: { circle } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
    };
  },
};

export default { meta: { name: 'parakeet-local' }, rules: { 'no-import-cycle': noImportCycle } };
