// A fake window.parakeet for the renderer's command tests: each invoke is
// recorded and left pending until the test answers it.
import assert from 'node:assert/strict';
import { afterEach, beforeEach } from 'node:test';
import type { InvokeChannel, ParakeetApi, Result } from '../../../app/ipc/contract.js';
import * as actions from '../../../renderer/store/actions.js';
import { setApi } from '../../../renderer/store/api.js';

export class FakeApi {
  readonly calls: { channel: InvokeChannel; payload: unknown; resolve: (r: Result<unknown>) => void }[] = [];
  readonly api = {
    mode: 'web',
    invoke: (channel: InvokeChannel, payload?: unknown) =>
      new Promise<Result<unknown>>((resolve) => this.calls.push({ channel, payload, resolve })),
    on: () => () => undefined,
    sendAudio: () => undefined,
  } as unknown as ParakeetApi;

  take(channel: InvokeChannel) {
    const i = this.calls.findIndex((c) => c.channel === channel);
    assert.ok(i >= 0, `expected a ${channel} invoke; got ${this.calls.map((c) => c.channel).join(', ') || 'none'}`);
    return this.calls.splice(i, 1)[0];
  }
}

/** In a describe block: before each test, a fresh store and this fake (with no calls) as window.parakeet. */
export function installFakeApi(): FakeApi {
  const fake = new FakeApi();
  beforeEach(() => {
    actions.resetStore();
    fake.calls.length = 0;
    setApi(fake.api);
  });
  afterEach(() => setApi(null));
  return fake;
}
