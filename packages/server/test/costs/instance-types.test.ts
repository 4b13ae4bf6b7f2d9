import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '@runyard/server';
import { startTestServer, type TestServer } from '../../../../test/support/server.js';
import { assertError, call } from '../wire.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-instance-types-'));
let n = 0;
function file(content: unknown): string {
  const f = path.join(dir, `types-${n++}.json`);
  writeFileSync(f, typeof content === 'string' ? content : JSON.stringify(content));
  return f;
}

const big = { name: 'lab.huge', vcpus: 64, memoryGiB: 512, pricePerHourUsd: 1.5, priceDate: '2025-03-01' };

async function typesOf(s: TestServer) {
  const r = await call(s, 'GET', `/api/runyard/instance-types?teamId=${s.admin.workspaceId}`);
  assert.equal(r.statusCode, 200, r.body);
  return r.json() as {
    instanceTypes: Record<string, unknown>[];
    defaultInstanceType: string;
    localExecutor: { cpus: number; memoryGiB: number; strict: boolean; fit: Record<string, string>; suggestedInstanceType: string };
  };
}

describe('instance types (GET /api/runyard/instance-types)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  it('lists the built-in catalogue: AWS c5, m5, r5, t3 and Azure Dasv4, Dsv5, with size, hourly price and its date', async () => {
    const reply = await typesOf(s);
    assert.equal(reply.defaultInstanceType, 'c5.xlarge');
    const byName = new Map(reply.instanceTypes.map((t) => [t.name, t]));
    assert.deepEqual(byName.get('c5.xlarge'), {
      name: 'c5.xlarge',
      provider: 'aws',
      vcpus: 4,
      memoryGiB: 8,
      pricePerHourUsd: 0.17,
      priceDate: '2025-06-01',
    });
    assert.deepEqual(byName.get('Standard_D4as_v4'), {
      name: 'Standard_D4as_v4',
      provider: 'azure',
      vcpus: 4,
      memoryGiB: 16,
      pricePerHourUsd: 0.192,
      priceDate: '2025-06-01',
    });
    for (const family of ['c5', 'm5', 'r5', 't3'])
      for (const size of ['large', 'xlarge', '2xlarge']) assert.ok(byName.has(`${family}.${size}`), `${family}.${size}`);
    for (const n of [2, 4, 8, 16]) assert.ok(byName.has(`Standard_D${n}as_v4`) && byName.has(`Standard_D${n}s_v5`), String(n));
    for (const t of reply.instanceTypes) assert.ok((t.pricePerHourUsd as number) > 0 && (t.vcpus as number) > 0, String(t.name));
  });

  it('needs a key and a workspace of the caller', async () => {
    assertError(await call(s, 'GET', `/api/runyard/instance-types?teamId=${s.admin.workspaceId}`, undefined, null), 401, 'UNAUTHENTICATED');
    const other = await s.newTenant('olga');
    assertError(await call(s, 'GET', `/api/runyard/instance-types?teamId=${other.workspaceId}`), 404, 'WORKSPACE_NOT_FOUND');
  });
});

describe('instance types on a small host: how each fits the local executor, and the one a form offers first', () => {
  it('2 CPUs, 8 GiB: larger types run capped (refused in strict mode); the largest that fits is offered first', async () => {
    for (const strict of [false, true]) {
      const s = await startTestServer({
        env: { RUNYARD_LOCAL_CPUS: '2', RUNYARD_LOCAL_MEMORY_GIB: '8', RUNYARD_STRICT_RESOURCES: String(strict) },
      });
      try {
        const { localExecutor: local, defaultInstanceType } = await typesOf(s);
        assert.equal(defaultInstanceType, 'c5.xlarge');
        assert.deepEqual([local.cpus, local.memoryGiB, local.strict], [2, 8, strict]);
        assert.equal(local.fit['c5.large'], 'fits');
        assert.equal(local.fit['t3.large'], 'fits');
        assert.equal(local.fit['c5.xlarge'], strict ? 'refused' : 'capped');
        // 2 vCPUs, 8 GiB at most: of those, the most memory, then the cheapest.
        assert.equal(local.suggestedInstanceType, 't3.large');
      } finally {
        await s.close();
      }
    }
    // Where the default fits, it is the one offered.
    const roomy = await startTestServer({ env: { RUNYARD_LOCAL_CPUS: '4', RUNYARD_LOCAL_MEMORY_GIB: '16' } });
    try {
      assert.equal((await typesOf(roomy)).localExecutor.suggestedInstanceType, 'c5.xlarge');
    } finally {
      await roomy.close();
    }
  });
});

describe('instance types: the operator file (RUNYARD_INSTANCE_TYPES)', () => {
  it('an array extends the catalogue, and an entry with a built-in name replaces that type', async () => {
    const cheap = { name: 'c5.xlarge', provider: 'aws', vcpus: 4, memoryGiB: 8, pricePerHourUsd: 0.1, priceDate: '2025-07-01' };
    const s = await startTestServer({ env: { RUNYARD_INSTANCE_TYPES: file([big, cheap]) } });
    try {
      const byName = new Map((await typesOf(s)).instanceTypes.map((t) => [t.name, t]));
      assert.deepEqual(byName.get('lab.huge'), { ...big, provider: 'other' });
      assert.deepEqual(byName.get('c5.xlarge'), cheap);
      assert.ok(byName.has('m5.large'));
    } finally {
      await s.close();
    }
  });

  it('{"replaceBuiltIn": true} makes the file the whole catalogue', async () => {
    const s = await startTestServer({ env: { RUNYARD_INSTANCE_TYPES: file({ replaceBuiltIn: true, instanceTypes: [big] }) } });
    try {
      assert.deepEqual((await typesOf(s)).instanceTypes, [{ ...big, provider: 'other' }]);
    } finally {
      await s.close();
    }
  });

  it('a bad file is a configuration error at start that names the problem', () => {
    const problem = (content: unknown) => {
      try {
        loadConfig({ RUNYARD_DATA_DIR: dir, RUNYARD_INSTANCE_TYPES: file(content) });
      } catch (e) {
        assert.ok(e instanceof ConfigError, String(e));
        assert.equal(e.problems.length, 1, e.message);
        return e.problems[0];
      }
      assert.fail('accepted a bad instance-types file');
    };
    assert.match(problem('{not json'), /^RUNYARD_INSTANCE_TYPES .*types-\d+\.json: .*JSON/);
    assert.match(problem([big, { ...big, name: 'x', vcpus: 0 }]), /entry 1 \/vcpus: /);
    assert.match(problem([{ ...big, pricePerHourUsd: 'cheap' }]), /entry 0 \/pricePerHourUsd: /);
    assert.match(problem([{ ...big, priceDate: 'yesterday' }]), /entry 0 \/priceDate: /);
    assert.match(problem([{ ...big, colour: 'red' }]), /entry 0 /);
    assert.match(problem([big, big]), /instance type "lab\.huge" is listed twice/);
    assert.match(problem({ instanceTypes: 'none' }), /must be a JSON array of instance types or/);
    try {
      loadConfig({ RUNYARD_DATA_DIR: dir, RUNYARD_INSTANCE_TYPES: path.join(dir, 'missing.json') });
      assert.fail('accepted a missing file');
    } catch (e) {
      assert.ok(e instanceof ConfigError);
      assert.match(e.problems[0], /^RUNYARD_INSTANCE_TYPES .*missing\.json: ENOENT/);
    }
  });
});
