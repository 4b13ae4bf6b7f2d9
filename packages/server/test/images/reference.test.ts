import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ImagePullError } from '../../src/images/pull-error.js';
import { parseImageReference } from '../../src/images/reference.js';

const DIGEST = `sha256:${'a1'.repeat(32)}`;

describe('image references (Docker Hub naming rules)', () => {
  const canonical = (image: string) => parseImageReference(image).canonical;

  it('puts short names on Docker Hub, official images under library/, latest by default', () => {
    assert.equal(canonical('ubuntu'), 'docker.io/library/ubuntu:latest');
    assert.equal(canonical('ubuntu:22.04'), 'docker.io/library/ubuntu:22.04');
    assert.equal(canonical('library/ubuntu:22.04'), 'docker.io/library/ubuntu:22.04');
    assert.equal(canonical('user/img:tag'), 'docker.io/user/img:tag');
    assert.equal(canonical('docker.io/ubuntu'), 'docker.io/library/ubuntu:latest');
    assert.equal(canonical('index.docker.io/user/img'), 'docker.io/user/img:latest');
  });

  it('reads a registry from a first component with a dot, a port or localhost', () => {
    assert.deepEqual(parseImageReference(`host:5000/x/y@${DIGEST}`), {
      registry: 'host:5000',
      repository: 'x/y',
      tag: null,
      digest: DIGEST,
      canonical: `host:5000/x/y@${DIGEST}`,
    });
    assert.equal(canonical('registry.example.org/team/tool:1.4'), 'registry.example.org/team/tool:1.4');
    assert.equal(canonical('localhost/tool'), 'localhost/tool:latest');
    assert.equal(canonical('127.0.0.1:5000/a'), '127.0.0.1:5000/a:latest');
    assert.equal(canonical(`ghcr.io/o/r:v1@${DIGEST}`), `ghcr.io/o/r:v1@${DIGEST}`);
    // A port-less, dot-less first component is a Docker Hub user, not a host.
    assert.equal(parseImageReference('team/tool').registry, 'docker.io');
  });

  it('refuses what Docker refuses, with kind invalid-reference', () => {
    for (const bad of ['', 'Ubuntu', 'docker.io/Library/x', 'x:', 'x@sha256:12', 'x:-tag', 'a//b', '-rm', 'x y', 'host:port/x']) {
      assert.throws(
        () => parseImageReference(bad),
        (e: unknown) => e instanceof ImagePullError && e.kind === 'invalid-reference',
        bad,
      );
    }
    assert.throws(() => parseImageReference(`r.io/${'a'.repeat(260)}`), /at most 255/);
  });
});
