import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { call } from './wire.js';

// GET /api/v2/projects?search= (wire §2.7, §8.1): the client's name lookup sends `search` alone
// and picks the exact name from the reply.
describe('projects: search (wire)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
    // "sample" first, so that newest-first order alone would list it last.
    const names = ['sample', ...Array.from({ length: 120 }, (_, i) => `sample-${String(i).padStart(3, '0')}`)];
    names.push('RNA-seq Study', '100% done', '100 done', 'a_b', 'axb', 'back\\slash', 'other');
    for (const name of names) {
      const r = await call(s, 'POST', `/api/v1/projects?teamId=${s.admin.workspaceId}`, { name });
      assert.equal(r.statusCode, 200, r.body);
    }
  });
  after(() => s.close());

  /** `search` is put in the URL as given: the public client does not encode it. */
  const search = async (raw: string, extra = '') => {
    const r = await call(s, 'GET', `/api/v2/projects?teamId=${s.admin.workspaceId}&search=${raw}${extra}`);
    assert.equal(r.statusCode, 200, r.body);
    const body = r.json() as { total: number; projects: { name: string }[] };
    return { total: body.total, names: body.projects.map((p) => p.name) };
  };

  it('matches a substring, ignoring case', async () => {
    assert.deepEqual(await search('rna'), { total: 1, names: ['RNA-seq Study'] });
    assert.deepEqual(await search(encodeURIComponent('SEQ st')), { total: 1, names: ['RNA-seq Study'] });
    assert.deepEqual(await search('nothing-like-this'), { total: 0, names: [] });
  });

  it('returns the exact match first among more than 100 similar names, when no pageSize is sent', async () => {
    const { total, names } = await search('sample');
    assert.equal(total, 121);
    assert.equal(names.length, 121);
    assert.equal(names[0], 'sample');
    assert.equal(names.filter((n) => n === 'sample').length, 1);
  });

  it('keeps the exact match first on page 1 of a small page, and counts every match', async () => {
    assert.deepEqual(await search('sample', '&pageSize=10&page=1').then((r) => [r.total, r.names.length, r.names[0]]), [121, 10, 'sample']);
    const exact = await search('sample-042');
    assert.deepEqual(exact, { total: 1, names: ['sample-042'] });
  });

  it('takes % and _ literally', async () => {
    assert.deepEqual(await search(encodeURIComponent('%')), { total: 1, names: ['100% done'] });
    assert.deepEqual(await search('100%'), { total: 1, names: ['100% done'] });
    assert.deepEqual(await search('_'), { total: 1, names: ['a_b'] });
    assert.deepEqual(await search('a_b'), { total: 1, names: ['a_b'] });
    assert.deepEqual(await search(encodeURIComponent('\\')), { total: 1, names: ['back\\slash'] });
  });

  it('lists everything for an empty or blank search', async () => {
    const all = await search('', '&pageSize=0');
    assert.equal(all.total, 128);
    assert.equal((await search('%20%20', '&pageSize=0')).total, 128);
  });
});
