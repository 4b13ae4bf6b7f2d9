import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { globProblem, globToRegExp } from '../../src/staging/glob.js';

describe('glob patterns of globPattern parameters', () => {
  const matches = (pattern: string, paths: string[]) => paths.filter((p) => globToRegExp(pattern).test(p));
  const files = [
    'a.fq',
    'b.fq',
    'a.fq.gz',
    '.hidden.fq',
    'notes.txt',
    'lane2/c.fq',
    'lane2/deep/d.fq',
    's1.bam',
    's2.bam',
    's3.bam',
    'x+y(1).fq',
  ];

  it('matches as Java globs do: * and ? within a name, ** across folders, classes, alternatives', () => {
    assert.deepEqual(matches('*.fq', files), ['a.fq', 'b.fq', '.hidden.fq', 'x+y(1).fq']);
    assert.deepEqual(matches('**/*.fq', files), ['a.fq', 'b.fq', '.hidden.fq', 'lane2/c.fq', 'lane2/deep/d.fq', 'x+y(1).fq']);
    assert.deepEqual(matches('lane2/*.fq', files), ['lane2/c.fq']);
    assert.deepEqual(matches('lane2/**', files), ['lane2/c.fq', 'lane2/deep/d.fq']);
    assert.deepEqual(matches('s[12].bam', files), ['s1.bam', 's2.bam']);
    assert.deepEqual(matches('s[!12].bam', files), ['s3.bam']);
    assert.deepEqual(matches('s[1-2].bam', files), ['s1.bam', 's2.bam']);
    assert.deepEqual(matches('?.fq', files), ['a.fq', 'b.fq']);
    assert.deepEqual(matches('{a,b}.fq', files), ['a.fq', 'b.fq']);
    assert.deepEqual(matches('*.{fq,txt}', files), ['a.fq', 'b.fq', '.hidden.fq', 'notes.txt', 'x+y(1).fq']);
    assert.deepEqual(matches('x+y(1).fq', files), ['x+y(1).fq']);
  });

  it('refuses patterns that leave their folder or do not parse', () => {
    for (const bad of ['', '/etc/*', '../*', 'a/../b', './a', 'a//b', 'a\\b', 'tab\there', '[abc', 's[a/b]', '{a,b', 'x'.repeat(1001), 5]) {
      assert.ok(globProblem(bad), `accepted ${JSON.stringify(bad)}`);
    }
    for (const good of ['*', '*.fq', '**/*.bam', 'dir/s_[0-9].txt', '{a,b}/*']) assert.equal(globProblem(good), null, good);
  });
});
