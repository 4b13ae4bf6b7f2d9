import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ImageCache } from '../../src/images/image-cache.js';
import { mirrorSettings } from '../../src/images/mirror-settings.js';
import { freePort, registryToolsMissing } from '../../../../test/support/registry.js';
import { pullFailure, startImageFixture, type ImageFixture } from './fixture.js';

const skip = registryToolsMissing() ?? false;
const OPERATOR = { username: 'mirror-robot', password: 'mirror-secret-9d1' };

/** An operator's registry mirror (RUNYARD_REGISTRY_MIRRORS), tried before the registry, with the operator's account at it. */
describe('image pulls through a registry mirror', { skip, timeout: 120_000 }, () => {
  let open: ImageFixture;
  let locked: ImageFixture;
  let down: string;
  before(async () => {
    [open, locked] = await Promise.all([startImageFixture(), startImageFixture(OPERATOR)]);
    down = `127.0.0.1:${await freePort()}`;
  });
  after(async () => {
    await open?.stop();
    await locked?.stop();
  });
  const cacheWith = (location: string, credentials: typeof OPERATOR | null) =>
    new ImageCache({
      dataDir: mkdtempSync(path.join(open.dir, 'mirror-data-')),
      insecureRegistries: [down, location],
      mirrors: [{ registry: down, location, credentials }],
    });

  it('pulls an image of a registry that is down from its mirror, and says so', async () => {
    const lines: string[] = [];
    const pulled = await cacheWith(open.registry.host, null).pull(`${down}/t/a:1`, { onProgress: (l) => lines.push(l) });
    assert.equal(pulled.digest, open.digests.get('t/a:1'));
    assert.ok(
      lines.some((l) => l.includes(`(its mirror ${open.registry.host} first)`)),
      lines.join('\n'),
    );
  });

  it("pulls from a mirror that asks for an account with the operator's, never saying its password; refused without it", async () => {
    const lines: string[] = [];
    const pulled = await cacheWith(locked.registry.host, OPERATOR).pull(`${down}/t/private:1`, { onProgress: (l) => lines.push(l) });
    assert.equal(pulled.digest, locked.digests.get('t/private:1'));
    assert.ok(lines.some((l) => l.includes(`as ${OPERATOR.username}`)));
    assert.ok(!lines.join('\n').includes(OPERATOR.password));
    // Without the operator's account the mirror refuses, and the registry is down: the message has both.
    const refused = await pullFailure(cacheWith(locked.registry.host, null).pull(`${down}/t/private:1`), 'unauthorized');
    assert.match(refused.message, new RegExp(`Mirrors also failed: \\[${locked.registry.host}/t/private:1: .*unauthorized`));
    assert.match(refused.message, /connection refused/);
  });

  it("reads the operator's accounts from a docker-style auth file; a file that is not one stops the start", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-mirror-auth-'));
    const file = path.join(dir, 'auth.json');
    const auth = Buffer.from(`${OPERATOR.username}:${OPERATOR.password}`).toString('base64');
    writeFileSync(file, JSON.stringify({ auths: { 'mirror.lab.org:5000': { auth } } }));
    assert.deepEqual(mirrorSettings({ 'docker.io': 'mirror.lab.org:5000', 'ghcr.io': 'ghcr-mirror.lab.org' }, file), [
      { registry: 'docker.io', location: 'mirror.lab.org:5000', credentials: OPERATOR },
      { registry: 'ghcr.io', location: 'ghcr-mirror.lab.org', credentials: null },
    ]);
    assert.deepEqual(mirrorSettings({ 'docker.io': 'm:1' }, ''), [{ registry: 'docker.io', location: 'm:1', credentials: null }]);
    writeFileSync(file, '{"auths": {"m:1": {"auth": "bm9jb2xvbg=="}}}');
    assert.throws(() => mirrorSettings({ 'docker.io': 'm:1' }, file), /the "auth" of m:1 is not base64 of user:password/);
    writeFileSync(file, 'not json');
    assert.throws(() => mirrorSettings({ 'docker.io': 'm:1' }, file), /cannot be read as JSON/);
    assert.throws(() => mirrorSettings({ 'docker.io': 'm:1' }, path.join(dir, 'missing.json')), /cannot be read/);
  });
});
