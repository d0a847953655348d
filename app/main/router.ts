// The IPC router both adapters use (Electron ipcMain, web bridge): every
// request is checked against the contract (known channel, valid payload)
// before its handler runs, and every outcome is a Result envelope: errors keep
// their stable code instead of Electron's bare message, and nothing a client
// sends can throw past this point.
import type { InvokeChannel, RequestOf, ResponseOf, Result } from '../ipc/contract.js';
import { INVOKE_CHANNELS } from '../ipc/contract.js';
import { isInvokeChannel, validatePayload } from '../ipc/validate.js';
import type { Logger } from './log.js';

/** Who is calling: one id per window (Electron webContents) or per bridge connection. */
export interface CallContext {
  clientId: string;
}

export type Handler<C extends InvokeChannel> = (request: RequestOf<C>, context: CallContext) => Promise<ResponseOf<C>> | ResponseOf<C>;
export type Handlers = { [C in InvokeChannel]: Handler<C> };

/** Codes the user caused or can fix; anything else is logged as an internal error. */
const EXPECTED = new Set([
  'INVALID_PAYLOAD', 'UNKNOWN_CHANNEL', 'NO_MODEL', 'MODEL_INVALID', 'BAD_AUDIO', 'ABORTED', 'CANCELLED', 'NOT_SUPPORTED',
  'SESSION_NOT_FOUND', 'NOT_FOUND', 'UNKNOWN_MODEL', 'IO_ERROR', 'DEVICE_UNAVAILABLE', 'DISK_FULL', 'MEETING_RECORDING',
]);

export function errorResult(error: unknown): Result<never> {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : safeText(error);
  return { ok: false, error: { code: typeof code === 'string' && code ? code : 'INTERNAL', message } };
}

/**
 * A short description of any value that cannot throw: String() calls a client-supplied toString (JSON
 * gives objects like {"toString": 1}, whose String() throws a TypeError).
 */
export function safeText(value: unknown, max = 80): string {
  if (typeof value === 'string') return value.slice(0, max);
  if (value === null || typeof value !== 'object') return String(value).slice(0, max);
  return Array.isArray(value) ? 'an array' : 'an object';
}

export class Router {
  constructor(private readonly handlers: Handlers, private readonly log: Logger) {}

  /** The channels with a handler (the contract test compares this with INVOKE_CHANNELS). */
  channels(): InvokeChannel[] {
    return INVOKE_CHANNELS.filter((c) => typeof this.handlers[c] === 'function');
  }

  /** Never rejects: whatever a client sends, the answer is a Result. */
  async handle(channel: unknown, payload: unknown, context: CallContext): Promise<Result<unknown>> {
    try {
      if (!isInvokeChannel(channel)) {
        return { ok: false, error: { code: 'UNKNOWN_CHANNEL', message: `there is no channel ${safeText(channel)}` } };
      }
      return await this.dispatch(channel, payload, context);
    } catch (error) {
      this.log.error('router failed', error);
      return { ok: false, error: { code: 'INTERNAL', message: 'the request could not be handled' } };
    }
  }

  private async dispatch<C extends InvokeChannel>(channel: C, payload: unknown, context: CallContext): Promise<Result<unknown>> {
    const request = validatePayload(channel, payload);
    if (!request.ok) {
      this.log.warn(request.error.message);
      return request;
    }
    try {
      const handler = this.handlers[channel] as Handler<C>;
      const value = await handler(request.value, context);
      return { ok: true, value: value ?? null };
    } catch (error) {
      const result = errorResult(error);
      if (!result.ok) {
        if (EXPECTED.has(String(result.error.code))) this.log.info(`${channel}: ${result.error.code}: ${result.error.message}`);
        else this.log.error(`${channel} failed`, error);
      }
      return result;
    }
  }
}
