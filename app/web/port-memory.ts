// Web mode keeps its port across restarts when it is still free (issue 44 item 10): a restart then serves
// the same address, and only the access token in it is new. The port lives in <userData>/web-port.
import { readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

const FILE = 'web-port';

function portFile(userDataDir: string): string {
  return path.join(userDataDir, FILE);
}

/** True when nothing listens on host:port right now. */
export function portFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/** The port of the last run when it is free now, else 0 (any free port). */
export async function rememberedPort(userDataDir: string, host: string): Promise<number> {
  const text = await readFile(portFile(userDataDir), 'utf8').catch(() => '');
  const port = Number(text.trim());
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return 0;
  return (await portFree(port, host)) ? port : 0;
}

export async function rememberPort(userDataDir: string, port: number): Promise<void> {
  await writeFile(portFile(userDataDir), `${port}\n`).catch(() => undefined);
}
