import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { connectionArgs } from './support/connection-args.js';
import { runCli } from './support/run-cli.js';
import { selfSignedCertificate } from '../../../test/support/tls.js';

describe('TLS: --disable-ssl-verification and --ssl-cert against an HTTPS server', () => {
  let s: TestServer;
  let certFile: string;
  let conn: string[];
  before(async () => {
    const cert = selfSignedCertificate();
    certFile = cert.certFile;
    s = await startTestServer({ listen: true, env: { RUNYARD_TLS_CERT_FILE: cert.certFile, RUNYARD_TLS_KEY_FILE: cert.keyFile } });
    assert.match(s.url, /^https:\/\//);
    conn = connectionArgs(s.url, s.admin.apikey, s.admin.workspaceId);
  });
  after(() => s.close());

  it('verifies by default: a self-signed certificate is refused with a TLS error (exit 1) and a hint', async () => {
    const r = await runCli(['project', 'list', ...conn]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^Error: Could not reach https:\/\/127\.0\.0\.1:\d+: self[- ]signed certificate.*--ssl-cert/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  });

  it('--ssl-cert with the CA file succeeds', async () => {
    const r = await runCli(['project', 'create', '--new-project', 'secure', '--ssl-cert', certFile, ...conn]);
    assert.equal(r.code, 0, r.stderr);
    const list = await runCli(['project', 'list', '--ssl-cert', certFile, ...conn]);
    assert.equal(list.code, 0, list.stderr);
    assert.equal(list.stdout.split('\t')[1], 'secure');
  });

  it('--disable-ssl-verification succeeds', async () => {
    const r = await runCli(['project', 'list', '--disable-ssl-verification', ...conn]);
    assert.equal(r.code, 0, r.stderr);
    const admin = await runCli(['admin', 'workspace', 'list', '--disable-ssl-verification', ...connectionArgs(s.url, s.admin.apikey)]);
    assert.equal(admin.code, 0, admin.stderr);
  });

  it('--ssl-cert must name an existing file (usage error)', async () => {
    const r = await runCli(['project', 'list', '--ssl-cert', '/nonexistent/ca.pem', ...conn]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /^Error: option '--ssl-cert <file>' argument '\/nonexistent\/ca\.pem' is invalid\. The file "\/nonexistent\/ca\.pem" does not exist\./,
    );
  });
});
