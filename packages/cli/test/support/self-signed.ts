import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { tempDir } from './run-cli.js';

/** A self-signed certificate for localhost and 127.0.0.1, made with openssl in a temporary directory. */
export function selfSignedCertificate(): { certFile: string; keyFile: string } {
  const dir = tempDir('runyard-tls-');
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore', timeout: 30_000 },
  );
  return { certFile, keyFile };
}
