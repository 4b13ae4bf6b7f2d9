import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { bashBody, jobWorld, submit, type JobWorld } from './jobs/fixtures.js';
import { assertError, call } from './wire.js';

// Docker registry accounts (issue 11 §4): linked by their user, kept sealed, listed by users/me
// without the secret, and required by a job that asks for dockerLogin.
describe('docker registry accounts', () => {
  let w: JobWorld;
  before(async () => {
    w = await jobWorld();
  });
  after(() => w.close());

  const put = (body: unknown) => call(w.s, 'PUT', '/api/runyard/users/me/docker-registries', body);
  const me = async () => (await call(w.s, 'GET', '/api/v1/users/me')).json().dockerRegistriesCredentials;

  it('links an account: the password is sealed with the server key, never answered nor listed', async () => {
    const r = await put({ registry: 'GHCR.io', username: 'me', password: 'tok3n-secret' });
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(Object.keys(r.json()).sort(), ['createdAt', 'registry', 'username']);
    assert.equal(r.json().registry, 'ghcr.io');
    assert.ok(!r.body.includes('tok3n-secret'));
    const listed = await me();
    assert.deepEqual(listed, [{ registry: 'ghcr.io', username: 'me', createdAt: r.json().createdAt }]);
    const row = await w.s.store.db.selectFrom('docker_registries').selectAll().executeTakeFirstOrThrow();
    assert.ok(!row.password_sealed.includes('tok3n-secret'));
    assert.ok(!Buffer.from(row.password_sealed, 'base64').toString('latin1').includes('tok3n-secret'));
    const key = path.join(w.s.config.dataDir, 'secret.key');
    assert.equal(statSync(key).mode & 0o777, 0o600);
    assert.equal(readFileSync(key).length, 32);
    // Again: replaced, one account per registry.
    const again = await put({ registry: 'ghcr.io', username: 'me2', password: 'other' });
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual(await me(), [{ registry: 'ghcr.io', username: 'me2', createdAt: r.json().createdAt }]);
  });

  it('refuses a registry that is not a host, a missing password and unknown keys, changing nothing', async () => {
    const before = await me();
    assertError(await put({ registry: 'ghcr.io/acme', username: 'x', password: 'y' }), 400, 'VALIDATION_FAILED');
    assertError(await put({ registry: 'ghcr.io', username: 'x' }), 400, 'VALIDATION_FAILED');
    assertError(await put({ registry: 'ghcr.io', username: 'x', password: 'y', token: 'z' }), 400, 'VALIDATION_FAILED');
    assert.deepEqual(await me(), before);
  });

  it('a job with dockerLogin needs an account (400 otherwise); the job document says it logs in', async () => {
    const other = await w.s.newTenant('nobody');
    const linked = await call(
      w.s,
      'PUT',
      '/api/runyard/users/me/docker-registries',
      { registry: 'x.io', username: 'u', password: 'p' },
      other.apikey,
    );
    assert.equal(linked.statusCode, 200, linked.body);
    const deleted = await call(w.s, 'DELETE', '/api/runyard/users/me/docker-registries?registry=x.io', undefined, other.apikey);
    assert.equal(deleted.statusCode, 200, deleted.body);
    assertError(
      await call(w.s, 'DELETE', '/api/runyard/users/me/docker-registries?registry=x.io', undefined, other.apikey),
      404,
      'REGISTRY_NOT_FOUND',
    );
    const body = bashBody(w, { batch: { enabled: false, dockerLogin: true } });
    // The admin has an account (the first test); a user without one is refused.
    const ok = await submit(w, body);
    assert.equal(ok.statusCode, 200, ok.body);
    const doc = (await call(w.s, 'GET', `/api/v1/jobs/${ok.json().jobId}?teamId=${w.ws}`)).json();
    assert.equal(doc.batch.dockerLogin, true);
    await call(w.s, 'DELETE', '/api/runyard/users/me/docker-registries?registry=ghcr.io');
    const r = await submit(w, body);
    assertError(r, 400, 'VALIDATION_FAILED');
    assert.match(r.json().message, /dockerLogin needs a docker registry account linked to your user/);
    const plain = await submit(w, bashBody(w));
    assert.equal((await call(w.s, 'GET', `/api/v1/jobs/${plain.json().jobId}?teamId=${w.ws}`)).json().batch.dockerLogin, false);
  });
});
