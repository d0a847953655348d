// Helpers around the engine's typed API: asserting error codes and messages.
import assert from 'node:assert/strict';
import { isEngineError, type EngineError, type EngineErrorCode } from '../../../native/index.js';

/** Awaits `work`, which must reject with an engine error of `code` (and a message matching `message`). */
export async function rejectsWithCode(
  work: Promise<unknown> | (() => Promise<unknown>),
  code: EngineErrorCode,
  message?: RegExp | string,
): Promise<EngineError> {
  let outcome: { ok: true; value: unknown } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await (typeof work === 'function' ? work() : work) };
  } catch (error) {
    outcome = { ok: false, error };
  }
  if (outcome.ok) assert.fail(`expected a ${code} rejection, but it resolved`);
  const error = outcome.error;
  assert.ok(isEngineError(error), `expected an engine error with .code ${code}, got ${String(error)}`);
  assert.equal(error.code, code, `wrong code (message: ${error.message})`);
  if (typeof message === 'string') assert.ok(error.message.includes(message), `message ${JSON.stringify(error.message)} should include ${JSON.stringify(message)}`);
  else if (message) assert.match(error.message, message);
  return error;
}

/** Same for a synchronous call. */
export function throwsWithCode(work: () => unknown, code: EngineErrorCode, message?: RegExp | string): EngineError {
  let thrown: unknown;
  let threw = false;
  try {
    work();
  } catch (error) {
    thrown = error;
    threw = true;
  }
  assert.ok(threw, `expected a ${code} error, but the call returned`);
  assert.ok(isEngineError(thrown), `expected an engine error with .code ${code}, got ${String(thrown)}`);
  assert.equal(thrown.code, code, `wrong code (message: ${thrown.message})`);
  if (typeof message === 'string') assert.ok(thrown.message.includes(message), `message ${JSON.stringify(thrown.message)} should include ${JSON.stringify(message)}`);
  else if (message) assert.match(thrown.message, message);
  return thrown;
}

/**
 * Load options for tests that are not about threading: one CPU thread. On a
 * shared 2-core machine ggml's spinning thread pool with 2 threads can take
 * 100× longer than 1 thread when other processes compete for the cores.
 */
export const ONE_THREAD = { threads: 1 } as const;
