import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { prepareRootfs, resolveImageUser } from '../../src/images/rootfs-prepare.js';

const fresh = () => mkdtempSync(path.join(os.tmpdir(), 'runyard-prepare-'));

describe('an unpacked image readied for the sandbox (rootfs-prepare.ts)', () => {
  it('makes the mount points a sandbox needs, as real files and folders, in an image that has none', () => {
    const root = fresh();
    prepareRootfs(root);
    assert.ok(lstatSync(path.join(root, 'etc')).isDirectory());
    assert.ok(lstatSync(path.join(root, 'var/tmp')).isDirectory());
    for (const file of ['etc/resolv.conf', 'etc/hosts']) assert.ok(lstatSync(path.join(root, file)).isFile(), file);
  });

  it("replaces an image's links there (to the host's /etc/shadow, to /), never writing through them", () => {
    const outside = fresh();
    writeFileSync(path.join(outside, 'shadow'), 'host secret');
    const root = fresh();
    mkdirSync(path.join(root, 'etc'));
    mkdirSync(path.join(root, 'var'));
    symlinkSync(path.join(outside, 'shadow'), path.join(root, 'etc/resolv.conf'));
    symlinkSync(outside, path.join(root, 'var/tmp'));
    mkdirSync(path.join(root, 'etc/hosts'));
    prepareRootfs(root);
    assert.ok(lstatSync(path.join(root, 'etc/resolv.conf')).isFile());
    assert.ok(lstatSync(path.join(root, 'etc/hosts')).isFile());
    assert.ok(lstatSync(path.join(root, 'var/tmp')).isDirectory());
    assert.equal(readFileSync(path.join(outside, 'shadow'), 'utf8'), 'host secret');
    const etcLink = fresh();
    symlinkSync(outside, path.join(etcLink, 'etc'));
    prepareRootfs(etcLink);
    assert.ok(lstatSync(path.join(etcLink, 'etc')).isDirectory());
    assert.ok(lstatSync(path.join(outside, 'shadow')).isFile());
  });

  it("resolves the image's user as docker does: a name, a number, uid:gid, name:group; says when the name is unknown", () => {
    const root = fresh();
    mkdirSync(path.join(root, 'etc'));
    writeFileSync(path.join(root, 'etc/passwd'), 'root:x:0:0::/root:/bin/sh\napp:x:1234:2345::/srv:/bin/sh\n');
    writeFileSync(path.join(root, 'etc/group'), 'root:x:0:\nstaff:x:50:\n');
    assert.deepEqual(resolveImageUser(root, null), { uid: null, gid: null });
    assert.deepEqual(resolveImageUser(root, 'app'), { uid: 1234, gid: 2345 });
    assert.deepEqual(resolveImageUser(root, '1234'), { uid: 1234, gid: 2345 });
    assert.deepEqual(resolveImageUser(root, '4000'), { uid: 4000, gid: 0 });
    assert.deepEqual(resolveImageUser(root, '4000:4001'), { uid: 4000, gid: 4001 });
    assert.deepEqual(resolveImageUser(root, 'app:staff'), { uid: 1234, gid: 50 });
    assert.match(resolveImageUser(root, 'nobody-here').userProblem!, /the image's user "nobody-here" is not in its \/etc\/passwd/);
    assert.match(resolveImageUser(root, 'app:wheel').userProblem!, /group "wheel" is not in its \/etc\/group/);
  });

  it("reads no /etc/passwd that is a link (to the host's), as if the image had none", () => {
    const outside = fresh();
    writeFileSync(path.join(outside, 'passwd'), 'app:x:0:0::/:/bin/sh\n');
    const root = fresh();
    mkdirSync(path.join(root, 'etc'));
    symlinkSync(path.join(outside, 'passwd'), path.join(root, 'etc/passwd'));
    assert.match(resolveImageUser(root, 'app').userProblem!, /not in its \/etc\/passwd/);
  });
});
