// A tiny HTTP proxy that only does CONNECT tunnels (what HTTPS through a
// proxy uses), logging each tunnel target and optional Basic credentials.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';

export class TestConnectProxy {
  readonly tunnels: Array<{ target: string; auth: string | undefined }> = [];
  private server!: http.Server;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  static async start(opts: { requireAuth?: string } = {}): Promise<TestConnectProxy> {
    const p = new TestConnectProxy();
    p.server = http.createServer((_req, res) => {
      res.statusCode = 405;
      res.end();
    });
    p.server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
      p.sockets.add(client);
      const auth = req.headers['proxy-authorization'];
      p.tunnels.push({ target: req.url ?? '', auth });
      if (opts.requireAuth && auth !== `Basic ${Buffer.from(opts.requireAuth).toString('base64')}`) {
        client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
        return;
      }
      const [host, port] = (req.url ?? '').split(':');
      const upstream = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      p.sockets.add(upstream);
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => p.server.listen(0, '127.0.0.1', resolve));
    p.port = (p.server.address() as AddressInfo).port;
    return p;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
