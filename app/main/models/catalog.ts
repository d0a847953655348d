// Typed view of catalog.json (the published parakeet.cpp GGUF files) plus the
// validator that keeps the data honest: unknown sizes/hashes stay null, every
// known number says where it comes from, URLs follow the HF pattern.
import catalogJson from './catalog.json' with { type: 'json' };
import { ModelError } from './errors.js';
import type { CatalogEntry, CatalogLicense, DecoderHead, LicenseInfo, ModelVariant, RecommendedFor } from './types.js';

export type { CatalogEntry, CatalogLicense, RecommendedFor };

export const VARIANTS = ['f16', 'q8_0', 'q6_k', 'q5_k', 'q4_k'] as const satisfies readonly ModelVariant[];
export type Variant = ModelVariant;

export interface Catalog {
  schemaVersion: 1;
  repository: string;
  revision: string;
  entries: CatalogEntry[];
}

// ---- validation helpers (the JSON is data; check it like input) ----

type Json = unknown;

function fail(path: string, what: string): never {
  throw new ModelError('CATALOG_INVALID', `catalog.json: ${path}: ${what}`);
}
function obj(v: Json, path: string): Record<string, Json> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(path, 'expected an object');
  return v as Record<string, Json>;
}
function str(v: Json, path: string): string {
  if (typeof v !== 'string' || v.length === 0) fail(path, 'expected a non-empty string');
  return v;
}
function strOrNull(v: Json, path: string): string | null {
  return v === null ? null : str(v, path);
}
function bool(v: Json, path: string): boolean {
  if (typeof v !== 'boolean') fail(path, 'expected a boolean');
  return v;
}
function arr(v: Json, path: string): Json[] {
  if (!Array.isArray(v)) fail(path, 'expected an array');
  return v;
}
function oneOf<T extends string>(v: Json, allowed: readonly T[], path: string): T {
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) fail(path, `expected one of ${allowed.join(', ')}`);
  return v as T;
}

const SHA256_RE = /^[0-9a-f]{64}$/;
const DECODERS: readonly DecoderHead[] = ['ctc', 'rnnt', 'tdt'];

function parseLicense(v: Json, path: string): CatalogLicense {
  const o = obj(v, path);
  const url = str(o.url, `${path}.url`);
  if (!url.startsWith('https://')) fail(`${path}.url`, 'must be https');
  return {
    spdx: strOrNull(o.spdx, `${path}.spdx`),
    name: str(o.name, `${path}.name`),
    url,
    confirmed: bool(o.confirmed, `${path}.confirmed`),
    source: str(o.source, `${path}.source`),
    attribution: str(o.attribution, `${path}.attribution`),
  };
}

/** Validate raw catalog JSON and flatten it to one entry per file. */
export function parseCatalog(raw: Json): Catalog {
  const root = obj(raw, '$');
  if (root.schemaVersion !== 1) fail('$.schemaVersion', 'unsupported schema version (expected 1)');
  const repository = str(root.repository, '$.repository');
  const revision = str(root.revision, '$.revision');
  const pattern = str(root.urlPattern, '$.urlPattern');
  const entries: CatalogEntry[] = [];
  const ids = new Set<string>();
  const recommended = new Map<RecommendedFor, string>();

  arr(root.models, '$.models').forEach((mv, mi) => {
    const mp = `$.models[${mi}]`;
    const m = obj(mv, mp);
    const slug = str(m.slug, `${mp}.slug`);
    const decoders = arr(m.decoders, `${mp}.decoders`).map((d, i) => oneOf(d, DECODERS, `${mp}.decoders[${i}]`));
    const languages = arr(m.languages, `${mp}.languages`).map((l, i) => str(l, `${mp}.languages[${i}]`));
    if (languages.length === 0) fail(`${mp}.languages`, 'must list at least one language');
    const base = {
      slug,
      upstream: str(m.upstream, `${mp}.upstream`),
      displayName: str(m.displayName, `${mp}.displayName`),
      architecture: str(m.architecture, `${mp}.architecture`),
      decoders,
      parameters: str(m.parameters, `${mp}.parameters`),
      languages,
      languagesNote: strOrNull(m.languagesNote, `${mp}.languagesNote`),
      casing: bool(m.casing, `${mp}.casing`),
      punctuation: bool(m.punctuation, `${mp}.punctuation`),
      streaming: bool(m.streaming, `${mp}.streaming`),
      engineSupport: oneOf(m.engineSupport, ['supported', 'not-yet'] as const, `${mp}.engineSupport`),
      recommendedUse: str(m.recommendedUse, `${mp}.recommendedUse`),
      license: parseLicense(m.license, `${mp}.license`),
    };
    arr(m.variants, `${mp}.variants`).forEach((vv, vi) => {
      const vp = `${mp}.variants[${vi}]`;
      const v = obj(vv, vp);
      const variant = oneOf(v.variant, VARIANTS, `${vp}.variant`);
      const file = str(v.file, `${vp}.file`);
      if (file !== `${slug}-${variant}.gguf`) fail(`${vp}.file`, `expected ${slug}-${variant}.gguf`);
      const url = str(v.url, `${vp}.url`);
      const expectedUrl = pattern.replace('{repository}', repository).replace('{revision}', revision).replace('{file}', file);
      if (url !== expectedUrl) fail(`${vp}.url`, `expected ${expectedUrl}`);
      const approx = v.approxBytes;
      if (approx !== null && (typeof approx !== 'number' || !Number.isSafeInteger(approx) || approx <= 0)) {
        fail(`${vp}.approxBytes`, 'expected a positive integer or null');
      }
      const sizeSource = strOrNull(v.sizeSource, `${vp}.sizeSource`);
      if ((approx === null) !== (sizeSource === null)) fail(`${vp}.sizeSource`, 'a size needs a source, and only a size has one');
      const sha = v.sha256;
      if (sha !== null && (typeof sha !== 'string' || !SHA256_RE.test(sha))) fail(`${vp}.sha256`, 'expected 64 lowercase hex digits or null');
      const rec = v.recommended === null ? null : oneOf(v.recommended, ['english-dictation', 'multilingual'] as const, `${vp}.recommended`);
      const id = file.slice(0, -'.gguf'.length);
      if (ids.has(id)) fail(vp, `duplicate id ${id}`);
      ids.add(id);
      if (rec) {
        if (recommended.has(rec)) fail(`${vp}.recommended`, `more than one ${rec} default`);
        if (base.engineSupport !== 'supported') fail(`${vp}.recommended`, 'a default must be supported by the engine');
        recommended.set(rec, id);
      }
      entries.push({
        ...base,
        id,
        variant,
        file,
        url,
        approxBytes: approx as number | null,
        sizeSource,
        sha256: sha as string | null,
        recommended: rec,
        notes: strOrNull(v.notes, `${vp}.notes`),
      });
    });
  });
  return { schemaVersion: 1, repository, revision, entries };
}

let bundled: Catalog | undefined;

/** The catalog shipped with the app (validated once). */
export function bundledCatalog(): Catalog {
  bundled ??= parseCatalog(catalogJson);
  return bundled;
}

export function findEntry(catalog: Catalog, id: string): CatalogEntry | undefined {
  return catalog.entries.find((e) => e.id === id);
}

export function recommendedEntry(catalog: Catalog, kind: RecommendedFor): CatalogEntry | undefined {
  return catalog.entries.find((e) => e.recommended === kind);
}

/** The licence of a catalog entry as the installed list and the first-run card show it. */
export function licenseInfo(license: CatalogLicense): LicenseInfo {
  return { spdx: license.spdx, name: license.name, url: license.url, confirmed: license.confirmed, attribution: license.attribution };
}
