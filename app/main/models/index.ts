// Public surface of the model manager (what adapters and other services import).
export { ModelManager, type ModelManagerOptions } from './model-manager.js';
export {
  bundledCatalog,
  parseCatalog,
  findEntry,
  recommendedEntry,
  VARIANTS,
  type Catalog,
  type CatalogEntry,
  type CatalogLicense,
  type RecommendedFor,
  type Variant,
} from './catalog.js';
export { ModelError, MODEL_ERROR_CODES, isModelError, type ModelErrorCode, type ModelErrorDetails } from './errors.js';
export { parsePacResult, envProxyFor, noProxyMatches, type ProxyUrl, type ResolveProxy } from './proxy.js';
export type { NetworkOptions } from './http-client.js';
export type { FreeSpaceProbe } from './disk-space.js';
export type { OpenWritable, WritableFile } from './file-io.js';
export type { RetryOptions } from './retry.js';
export type * from './types.js';
