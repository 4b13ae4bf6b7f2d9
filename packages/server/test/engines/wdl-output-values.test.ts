import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { copyOutputs as copyCromwellOutputs } from '../../src/engines/wdl/cromwell-task/outputs.mjs';
import { copyOutputs as copyMiniwdlOutputs } from '../../src/engines/wdl/miniwdl-task/outputs.mjs';

/**
 * Outputs of every WDL type as miniwdl's outputs.json and Cromwell's outputs endpoint give them
 * (neither carries types: a Map and a struct are JSON objects, a Pair is {"left", "right"}, an
 * optional that did not run is null): each File among them, at any depth, is copied into the
 * job's results and named by its copy in results/outputs.json; every other value is kept as it is,
 * a String that looks like a path included.
 */
describe("WDL outputs of every type in the job's results", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-wdl-outputs-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    return file;
  };
  const read = (file: string) => readFileSync(file, 'utf8');

  /** The outputs of a workflow, each File as `file(name)` gives it. */
  function typedOutputs(file: (name: string) => string) {
    return {
      'w.count': 3,
      'w.ratio': 0.25,
      'w.flag': false,
      'w.label': '/etc/hostname',
      'w.maybe': null,
      'w.table': { a: '1', bb: '2' },
      'w.by_sample': { s1: file('s1.bam'), s2: file('s2.bam') },
      'w.pair': { left: file('left.txt'), right: 7 },
      'w.sample': { name: 's1', reads: [file('r1.fq'), file('r2.fq')], index: null, stats: { depth: 30, report: file('qc.html') } },
      'w.nested': [[file('n0.txt')], []],
    };
  }
  /** The files made at `at(name)`, each holding its name. */
  const madeAt = (at: (name: string) => string) => (name: string) => write(at(name), `${name}\n`);
  /** What outputs.json must hold: each File as its copy's name in the results. */
  const EXPECTED = typedOutputs((name) => name);

  function checkResults(results: string) {
    const outputs = JSON.parse(read(path.join(results, 'outputs.json')));
    assert.deepEqual(outputs, EXPECTED);
    assert.deepEqual(readdirSync(results).sort(), ['left.txt', 'n0.txt', 'outputs.json', 'qc.html', 'r1.fq', 'r2.fq', 's1.bam', 's2.bam']);
    assert.equal(read(path.join(results, 'qc.html')), 'qc.html\n');
  }

  it("miniwdl: the Files are the links under the run's out/ folder, in maps, pairs, structs and nested arrays", async () => {
    const runs = path.join(dir, 'miniwdl', 'runs');
    const runDir = path.join(runs, 'job-1');
    // miniwdl links each File output under out/<output>/...; here the files themselves stand there.
    const outputs = typedOutputs(madeAt((name) => path.join(runDir, 'out', name.replace(/\W/g, '_'), name)));
    write(path.join(runDir, 'outputs.json'), JSON.stringify(outputs));
    const results = path.join(dir, 'miniwdl', 'results');
    const lines: string[] = [];
    assert.deepEqual(await copyMiniwdlOutputs(runDir, results, (l) => lines.push(l)), []);
    checkResults(results);
    assert.ok(lines.includes('output w.sample: qc.html'), lines.join('\n'));
  });

  it("Cromwell: the Files are paths in the workflow's root, in maps, pairs, structs and nested arrays", async () => {
    const root = path.join(dir, 'cromwell', 'cromwell-executions', 'w', 'abc');
    const outputs = typedOutputs(madeAt((name) => path.join(root, 'call-make', 'execution', name)));
    const results = path.join(dir, 'cromwell', 'results');
    assert.deepEqual(await copyCromwellOutputs(outputs, root, null, results, () => undefined), []);
    checkResults(results);
  });

  it('Cromwell: a File input passed on as an output is a File (the inputs name it); a String naming a file is a String', async () => {
    const reads = write(path.join(dir, 'cromwell-inputs', 'inputs', 'reads.fq'), '@r1\n');
    const inputsFile = write(path.join(dir, 'cromwell-inputs', 'inputs.json'), JSON.stringify({ 'w.reads': [reads] }));
    const root = path.join(dir, 'cromwell-inputs', 'cromwell-executions', 'w', 'def');
    const results = path.join(dir, 'cromwell-inputs', 'results');
    const outputs = { 'w.passed': reads, 'w.label': inputsFile, 'w.host': '/etc/hostname' };
    assert.deepEqual(await copyCromwellOutputs(outputs, root, inputsFile, results, () => undefined), []);
    assert.deepEqual(JSON.parse(read(path.join(results, 'outputs.json'))), {
      'w.passed': 'reads.fq',
      'w.label': inputsFile,
      'w.host': '/etc/hostname',
    });
    assert.deepEqual(readdirSync(results).sort(), ['outputs.json', 'reads.fq']);
  });
});
