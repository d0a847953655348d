// A throw-away self-signed certificate for 127.0.0.1/localhost, made with the
// openssl CLI at test time (nothing secret is committed). Tests trust it by
// passing it as an extra CA; certificate checks are never disabled.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestCertificate {
  key: string;
  cert: string;
}

let cached: TestCertificate | undefined;

export function testCertificate(): TestCertificate {
  if (cached) return cached;
  const dir = mkdtempSync(path.join(tmpdir(), 'parakeet-cert-'));
  try {
    const key = path.join(dir, 'key.pem');
    const cert = path.join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      [
        'req', '-x509', '-nodes', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1',
        '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost',
        '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-addext', 'basicConstraints=critical,CA:TRUE',
      ],
      { stdio: 'pipe' },
    );
    cached = { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
    return cached;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
