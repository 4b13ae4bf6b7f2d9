import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyPullFailure } from '../../src/images/pull-error.js';

const context = {
  image: 'r.io/t/a:1',
  registry: 'r.io',
  username: 'alice',
  cacheDir: '/data/images',
  secrets: ['s3cret', 'YWxpY2U6czNjcmV0'],
};
const fatal = (msg: string) => `time="2026-01-01T00:00:00Z" level=fatal msg="${msg.replace(/"/g, '\\"')}"\n`;

describe('pull failures as skopeo reports them', () => {
  it('unwraps skopeo\'s fatal line and its "Error parsing image name" prefix', () => {
    const error = classifyPullFailure(
      fatal('Error parsing image name "docker://r.io/t/a:1": reading manifest 1 in r.io/t/a: manifest unknown: manifest unknown'),
      context,
    );
    assert.equal(error.kind, 'not-found');
    assert.equal(
      error.message,
      'the image r.io/t/a:1 was not found at r.io (no such repository or tag): reading manifest 1 in r.io/t/a: manifest unknown: manifest unknown',
    );
  });

  it('never shows a secret a tool printed, in either form', () => {
    const error = classifyPullFailure(fatal('unauthorized: bad token s3cret (YWxpY2U6czNjcmV0)'), context);
    assert.equal(error.kind, 'unauthorized');
    assert.ok(!error.message.includes('s3cret') && !error.message.includes('YWxpY2U6czNjcmV0'), error.message);
    assert.match(error.message, /bad token \[redacted\] \(\[redacted\]\)/);
  });

  it('says failed, with the last line, for what it does not recognise', () => {
    const error = classifyPullFailure('first\nsomething odd happened\n', context);
    assert.equal(error.kind, 'failed');
    assert.equal(error.message, 'pulling r.io/t/a:1 from r.io failed: something odd happened');
  });
});
