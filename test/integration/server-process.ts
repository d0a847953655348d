// The web server as a process of its own (app/web/server.ts through tsx), for the tests that kill it:
// started on a free port with a model, its printed URL read, and a bridge client connected with the
// token from that URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { BridgeClient } from './bridge-client.js';

export interface ServerProcess {
  child: ChildProcess;
  client: BridgeClient;
  port: number;
  token: string;
}

export async function startServerProcess(userDataDir: string, modelPath: string, env: NodeJS.ProcessEnv = process.env): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/web/server.ts', '--port', '0', '--user-data', userDataDir, '--model', modelPath], {
    stdio: ['ignore', 'pipe', 'pipe'], env,
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no URL from the server: ${out}${err}`)), 60_000);
    child.stderr!.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-4000)));
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /^PARAKEET_WEB_URL=(\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)));
  });
  const parsed = new URL(url);
  const port = Number(parsed.port);
  const token = new URLSearchParams(parsed.hash.slice(1)).get('token')!;
  const client = await BridgeClient.connect(port, token);
  return { child, client, port, token };
}
