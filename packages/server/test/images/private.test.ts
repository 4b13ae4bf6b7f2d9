import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { registryToolsMissing } from '../../../../test/support/registry.js';
import { pullFailure, startImageFixture, type ImageFixture } from './fixture.js';

const skip = registryToolsMissing() ?? false;
const ACCOUNT = { username: 'alice', password: 'pw-9f3c1e-never-shown' };
const BASE64 = Buffer.from(`${ACCOUNT.username}:${ACCOUNT.password}`).toString('base64');

/** Every process's argv (and skopeo's environment) seen while `work` runs, polled from /proc. */
async function processesDuring<T>(work: Promise<T>): Promise<{ result: T; cmdlines: Set<string>; environs: Set<string> }> {
  const cmdlines = new Set<string>();
  const environs = new Set<string>();
  const poll = () => {
    for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
        cmdlines.add(cmdline);
        if (/skopeo/.test(cmdline)) environs.add(readFileSync(`/proc/${pid}/environ`, 'utf8'));
      } catch {
        // The process ended between the listing and the read.
      }
    }
  };
  const timer = setInterval(poll, 1);
  try {
    return { result: await work, cmdlines, environs };
  } finally {
    clearInterval(timer);
  }
}

describe('private images (htpasswd registry): credentials', { skip, timeout: 120_000 }, () => {
  let fx: ImageFixture;
  before(async () => {
    fx = await startImageFixture(ACCOUNT);
  });
  after(() => fx?.stop());
  const image = () => `${fx.registry.host}/t/private:1`;

  it('pulls with the right credentials, which reach no process argv or environment and leave no file', async () => {
    const cache = fx.newCache();
    const { result, cmdlines, environs } = await processesDuring(cache.pull(image(), { credentials: ACCOUNT }));
    assert.equal(result.digest, fx.digests.get('t/private:1'));
    assert.ok(existsSync(path.join(result.rootfs, 'usr/local/bin/hello-private')));
    const skopeos = [...cmdlines].filter((c) => /skopeo (--registries-conf=\S+ )?(inspect|copy)/.test(c));
    assert.ok(skopeos.length >= 1, `the poll saw skopeo run (saw ${cmdlines.size} command lines)`);
    for (const seen of [...cmdlines, ...environs]) {
      assert.ok(!seen.includes(ACCOUNT.password) && !seen.includes(BASE64), `a secret in: ${seen.slice(0, 300)}`);
    }
    assert.deepEqual(readdirSync(path.join(cache.root, 'tmp')), [], 'the auth file is removed');
  });

  it('refuses wrong credentials with kind unauthorized, naming the registry and the user, never the password', async () => {
    const wrong = { username: 'alice', password: 'wrong-' + ACCOUNT.password };
    const error = await pullFailure(fx.newCache().pull(image(), { credentials: wrong }), 'unauthorized');
    assert.match(error.message, new RegExp(`the registry ${fx.registry.host} refused .* to the user "alice"`));
    assert.ok(!error.message.includes(wrong.password) && !error.message.includes(ACCOUNT.password), error.message);
  });

  it('refuses an anonymous pull, saying it was anonymous', async () => {
    const error = await pullFailure(fx.newCache().pull(image()), 'unauthorized');
    assert.match(error.message, /refused .* to an anonymous pull/);
  });

  it("does not use the server user's own logins for an anonymous pull (~/.docker/config.json, DOCKER_CONFIG, REGISTRY_AUTH_FILE)", async () => {
    const home = path.join(fx.dir, 'server-home');
    mkdirSync(path.join(home, '.docker'), { recursive: true });
    const login = JSON.stringify({ auths: { [fx.registry.host]: { auth: BASE64 } } });
    writeFileSync(path.join(home, '.docker/config.json'), login);
    writeFileSync(path.join(home, 'auth.json'), login);
    const saved = { ...process.env };
    Object.assign(process.env, { HOME: home, DOCKER_CONFIG: path.join(home, '.docker'), REGISTRY_AUTH_FILE: path.join(home, 'auth.json') });
    try {
      await pullFailure(fx.newCache().pull(image()), 'unauthorized');
    } finally {
      for (const name of ['HOME', 'DOCKER_CONFIG', 'REGISTRY_AUTH_FILE']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
  });

  it('does not hand an image another user pulled to a caller without credentials', async () => {
    const cache = fx.newCache();
    await cache.pull(image(), { credentials: ACCOUNT });
    await pullFailure(cache.pull(image()), 'unauthorized');
  });
});
