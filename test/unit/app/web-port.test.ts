// Web mode keeps its port across restarts when it is free (issue 44 item 10), and takes any port when the
// remembered one is busy or was never saved.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { rememberedPort, rememberPort } from '../../../app/web/port-memory.js';

test('the last port is used again when free, 0 (any) when busy or unknown', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'parakeet-web-port-'));
  const busy = net.createServer();
  try {
    assert.equal(await rememberedPort(dir, '127.0.0.1'), 0, 'nothing saved yet');
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as net.AddressInfo).port;
    await rememberPort(dir, port);
    assert.equal(await rememberedPort(dir, '127.0.0.1'), 0, 'in use by another program');
    await new Promise<void>((resolve) => busy.close(() => resolve()));
    assert.equal(await rememberedPort(dir, '127.0.0.1'), port, 'free again: the same address');
  } finally {
    busy.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
