import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { detectWorkflow, manifestMainScript, WorkflowDetectionError } from '../../src/git/detect.js';
import { fetchSnapshot, type RepositorySnapshot } from '../../src/git/snapshot.js';
import { resolveRepositoryUrl } from '../../src/git/url-policy.js';
import { createGitMirror } from '../../../../test/support/git-repos.js';

/** An in-memory snapshot with the same contract as a fetched one. */
function snapshot(files: Record<string, string>): RepositorySnapshot {
  return {
    commit: 'a'.repeat(40),
    files: Object.keys(files),
    readFile: async (p) => files[p.replace(/^\.\//, '')] ?? null,
  };
}

const refused = (pattern: RegExp) => (err: unknown) => {
  assert.ok(err instanceof WorkflowDetectionError, String(err));
  assert.match(err.message, pattern);
  return true;
};

describe('detectWorkflow: Nextflow', () => {
  it('finds main.nf', async () => {
    assert.deepEqual(await detectWorkflow(snapshot({ 'main.nf': '', 'modules/x.nf': '' }), {}), {
      workflowType: 'nextflow',
      mainFile: 'main.nf',
    });
  });

  it('reads manifest.mainScript from nextflow.config', async () => {
    const config = `
      // mainScript = 'commented.nf'
      params { x = 'https://example.org/a//b' }
      manifest {
        name = 'pipe'
        homePage = 'https://github.com/acme/pipe' // a URL with // in it
        /* mainScript = 'also-commented.nf' */
        mainScript = 'workflows/pipe.nf'
      }
    `;
    assert.deepEqual(await detectWorkflow(snapshot({ 'nextflow.config': config, 'main.nf': '', 'workflows/pipe.nf': '' }), {}), {
      workflowType: 'nextflow',
      mainFile: 'workflows/pipe.nf',
    });
    assert.equal(manifestMainScript('manifest.mainScript = "run.nf"\n'), 'run.nf');
    assert.equal(manifestMainScript("manifest { name = 'x' }"), undefined);
  });

  it('refuses a manifest.mainScript that is not in the repository', async () => {
    await assert.rejects(
      detectWorkflow(snapshot({ 'nextflow.config': "manifest { mainScript = 'gone.nf' }", 'main.nf': '' }), {}),
      refused(/mainScript = 'gone\.nf'.*no such file/),
    );
  });

  it('with only a nextflow.config and one top-level script, takes that script', async () => {
    assert.deepEqual(await detectWorkflow(snapshot({ 'nextflow.config': 'params.x = 1', 'pipeline.nf': '' }), {}), {
      workflowType: 'nextflow',
      mainFile: 'pipeline.nf',
    });
  });

  it('with only a nextflow.config and no script, asks for the main file', async () => {
    await assert.rejects(
      detectWorkflow(snapshot({ 'nextflow.config': 'params.x = 1', 'sub/a.nf': '' }), {}),
      refused(/give the main file.*sub\/a\.nf/),
    );
  });

  it('with several top-level scripts and no main.nf, lists them', async () => {
    await assert.rejects(detectWorkflow(snapshot({ 'a.nf': '', 'b.nf': '' }), {}), refused(/a\.nf, b\.nf.*give the main file/));
  });

  it('takes a given .nf main file, which must exist', async () => {
    assert.deepEqual(await detectWorkflow(snapshot({ 'main.nf': '', 'alt/run.nf': '' }), { mainFile: './alt/run.nf' }), {
      workflowType: 'nextflow',
      mainFile: 'alt/run.nf',
    });
    await assert.rejects(
      detectWorkflow(snapshot({ 'main.nf': '' }), { mainFile: 'nope.nf' }),
      refused(/"nope\.nf" does not exist.*main\.nf/),
    );
  });
});

describe('detectWorkflow: WDL', () => {
  it('takes the only .wdl file', async () => {
    assert.deepEqual(await detectWorkflow(snapshot({ 'wf/hello.wdl': '', 'README.md': '' }), {}), {
      workflowType: 'wdl',
      mainFile: 'wf/hello.wdl',
    });
  });

  it('with several .wdl files and no main file, lists them', async () => {
    await assert.rejects(
      detectWorkflow(snapshot({ 'a.wdl': '', 'tasks/b.wdl': '' }), {}),
      refused(/several \.wdl files \(a\.wdl, tasks\/b\.wdl\); give the main file/),
    );
  });

  it('takes a given main file and imports file, which must exist', async () => {
    const s = snapshot({ 'a.wdl': '', 'tasks/b.wdl': '', 'imports.zip': '' });
    assert.deepEqual(await detectWorkflow(s, { mainFile: 'a.wdl' }), { workflowType: 'wdl', mainFile: 'a.wdl' });
    assert.deepEqual(await detectWorkflow(s, { mainFile: 'a.wdl', importsFile: 'imports.zip' }), {
      workflowType: 'wdl',
      mainFile: 'a.wdl',
      importsFile: 'imports.zip',
    });
    await assert.rejects(detectWorkflow(s, { mainFile: 'c.wdl' }), refused(/"c\.wdl" does not exist.*a\.wdl/));
    await assert.rejects(
      detectWorkflow(s, { mainFile: 'a.wdl', importsFile: 'gone.zip' }),
      refused(/imports file "gone\.zip" does not exist/),
    );
  });

  it('a given .wdl main file wins over Nextflow files', async () => {
    assert.deepEqual(await detectWorkflow(snapshot({ 'main.nf': '', 'x.wdl': '' }), { mainFile: 'x.wdl' }), {
      workflowType: 'wdl',
      mainFile: 'x.wdl',
    });
  });
});

describe('detectWorkflow: bad input', () => {
  it('refuses a repository with no workflow', async () => {
    await assert.rejects(detectWorkflow(snapshot({ 'README.md': '', 'src/x.py': '' }), {}), refused(/No workflow found/));
    await assert.rejects(detectWorkflow(snapshot({}), {}), refused(/No workflow found/));
  });

  it('refuses main files of another type, "..", absolute paths', async () => {
    const s = snapshot({ 'main.nf': '', 'run.sh': '' });
    await assert.rejects(detectWorkflow(s, { mainFile: 'run.sh' }), refused(/\.nf.*\.wdl/));
    await assert.rejects(detectWorkflow(s, { mainFile: '../main.nf' }), refused(/\.\./));
    await assert.rejects(detectWorkflow(s, { mainFile: '/main.nf' }), refused(/relative/));
  });
});

describe('detectWorkflow on fetched repositories', () => {
  it('detects a Nextflow and a WDL repository served through the rewrite', async () => {
    const mirror = createGitMirror();
    try {
      const policy = { allowedHosts: [], rewrites: mirror.rewrites };
      const cache = mkdtempSync(path.join(os.tmpdir(), 'runyard-git-cache-'));
      mirror.create('acme/nf', { files: { 'nextflow.config': "manifest {\n  mainScript = 'pipe.nf'\n}\n", 'pipe.nf': 'workflow {}\n' } });
      mirror.create('acme/wdl', { files: { 'workflows/hello.wdl': 'version 1.0\nworkflow hello {}\n', 'README.md': '# hello\n' } });
      const nf = await fetchSnapshot(resolveRepositoryUrl('https://github.com/acme/nf', policy), 'main', cache);
      assert.deepEqual(await detectWorkflow(nf, {}), { workflowType: 'nextflow', mainFile: 'pipe.nf' });
      const wdl = await fetchSnapshot(resolveRepositoryUrl('https://github.com/acme/wdl', policy), 'main', cache);
      assert.deepEqual(await detectWorkflow(wdl, {}), { workflowType: 'wdl', mainFile: 'workflows/hello.wdl' });
    } finally {
      mirror.remove();
    }
  });
});
