// Downloads through an HTTP CONNECT proxy (TLS stays end-to-end, the
// certificate is still checked), from the environment or an explicit
// setting, and NO_PROXY bypass. Plus the pure proxy helpers.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { envProxyFor, noProxyMatches, parsePacResult } from '../../../app/main/models/proxy.js';
import { TestConnectProxy } from '../../support/https-server/connect-proxy.js';
import { TestHttpsServer, hfRedirect, serveBytes } from '../../support/https-server/server.js';
import { RESOLVE, installedIds, makeManager, modelBytes, testCatalog } from './helpers.js';

let server: TestHttpsServer;
let proxy: TestConnectProxy;
before(async () => {
  server = await TestHttpsServer.start();
  proxy = await TestConnectProxy.start();
});
after(async () => {
  await proxy.close();
  await server.close();
});

function hfFile(slug: string, data: Buffer): void {
  server.route(`${RESOLVE}/${slug}-q8_0.gguf`, hfRedirect(`${server.origin}/cdn/${slug}`, data));
  server.route(`/cdn/${slug}`, (req, res) => serveBytes(req, res, data));
}

test('HTTPS_PROXY from the environment: every request goes through a CONNECT tunnel', async () => {
  const data = modelBytes(80_000);
  hfFile('viaenv', data);
  const before = proxy.tunnels.length;
  const h = await makeManager(server, testCatalog([{ slug: 'viaenv' }]), {
    network: { env: { HTTPS_PROXY: proxy.url } },
  });
  try {
    await h.manager.download('viaenv-q8_0');
    const done = await h.manager.waitForDownload('viaenv-q8_0');
    assert.equal(done.state, 'installed', JSON.stringify(done.error));
    const tunnels = proxy.tunnels.slice(before);
    // HEAD of the resolve hop (it carries size + sha256), GET + its redirect: three tunnels
    assert.equal(tunnels.length, 3);
    assert.ok(tunnels.every((t) => t.target === `127.0.0.1:${server.port}`));
    assert.deepEqual(await installedIds(h.manager), ['viaenv-q8_0']);
  } finally {
    await h.cleanup();
  }
});

test('explicit proxy with credentials (what the Electron adapter passes); NO_PROXY bypasses', async () => {
  const authProxy = await TestConnectProxy.start({ requireAuth: 'user:p@ss' });
  const data = modelBytes(40_000);
  hfFile('viaauth', data);
  hfFile('bypass', data);
  const withAuth = await makeManager(server, testCatalog([{ slug: 'viaauth' }]), {
    network: { resolveProxy: async () => `http://user:p%40ss@127.0.0.1:${authProxy.port}` },
  });
  const bypass = await makeManager(server, testCatalog([{ slug: 'bypass' }]), {
    network: { env: { https_proxy: authProxy.url, no_proxy: 'localhost,127.0.0.1' } },
  });
  try {
    await withAuth.manager.download('viaauth-q8_0');
    assert.equal((await withAuth.manager.waitForDownload('viaauth-q8_0')).state, 'installed');
    assert.ok(authProxy.tunnels.length >= 2);
    const n = authProxy.tunnels.length;
    await bypass.manager.download('bypass-q8_0');
    assert.equal((await bypass.manager.waitForDownload('bypass-q8_0')).state, 'installed');
    assert.equal(authProxy.tunnels.length, n, 'NO_PROXY host went direct');
  } finally {
    await withAuth.cleanup();
    await bypass.cleanup();
    await authProxy.close();
  }
});

test('a proxy refusing the tunnel fails with NETWORK and a message naming the proxy', async () => {
  const authProxy = await TestConnectProxy.start({ requireAuth: 'a:b' });
  hfFile('refused', modelBytes(1000));
  const h = await makeManager(server, testCatalog([{ slug: 'refused' }]), { network: { proxy: authProxy.url } });
  try {
    await h.manager.download('refused-q8_0');
    const done = await h.manager.waitForDownload('refused-q8_0');
    assert.equal(done.state, 'failed');
    assert.equal(done.error?.code, 'NETWORK');
    assert.match(done.error?.message ?? '', /refused to open a tunnel.*407/);
    assert.deepEqual(await installedIds(h.manager), []);
  } finally {
    await h.cleanup();
    await authProxy.close();
  }
});

test('envProxyFor / noProxyMatches follow curl conventions', () => {
  const hf = new URL('https://huggingface.co/x');
  assert.equal(envProxyFor(hf, {}), null);
  assert.equal(envProxyFor(hf, { HTTPS_PROXY: 'proxy:3128' }), 'http://proxy:3128');
  assert.equal(envProxyFor(hf, { https_proxy: 'http://a:1', HTTPS_PROXY: 'http://b:2' }), 'http://a:1');
  assert.equal(envProxyFor(hf, { ALL_PROXY: 'http://all:1' }), 'http://all:1');
  assert.equal(envProxyFor(hf, { HTTPS_PROXY: 'http://p:1', NO_PROXY: '.huggingface.co' }), null);
  assert.equal(envProxyFor(new URL('https://cdn-lfs.hf.co/x'), { HTTPS_PROXY: 'http://p:1', NO_PROXY: 'huggingface.co' }), 'http://p:1');
  assert.ok(noProxyMatches('a.example.com', 443, '*'));
  assert.ok(noProxyMatches('a.example.com', 443, 'example.com'));
  assert.ok(noProxyMatches('a.example.com', 443, '*.example.com'));
  assert.ok(!noProxyMatches('badexample.com', 443, 'example.com'));
  assert.ok(noProxyMatches('example.com', 8443, 'example.com:8443'));
  assert.ok(!noProxyMatches('example.com', 443, 'example.com:8443'));
  assert.ok(noProxyMatches('::1', 443, '[::1]'));
});

test('parsePacResult turns Electron resolveProxy answers into proxy URLs', () => {
  assert.equal(parsePacResult('DIRECT'), null);
  assert.equal(parsePacResult('PROXY proxy.corp:8080; DIRECT'), 'http://proxy.corp:8080');
  assert.equal(parsePacResult('HTTPS secure.corp:443'), 'https://secure.corp:443');
  assert.equal(parsePacResult(''), null);
  assert.throws(() => parsePacResult('SOCKS5 socks:1080'), { code: 'NETWORK' });
});
