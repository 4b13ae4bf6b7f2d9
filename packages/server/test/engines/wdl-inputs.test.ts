import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { workflowInputs } from '../../src/engines/wdl/wdl-declarations.js';
import { wdlInputsJson } from '../../src/engines/wdl/wdl-input-values.js';
import type { TaskParameter } from '../../src/engines/parameters.js';

const WDL_1 = `version 1.0
# a comment with workflow fake { input { Int no } }
task greet {
  input { String name }
  command <<<
    echo "workflow x { ~{name} }"
  >>>
  output { File out = stdout() }
}
workflow hello {
  input {
    String name
    Int times = 2   # a default
    Float ratio = 0.5
    Boolean loud = false
    File? reference
    Array[String]+ tags
    Array[Int] counts = []
    Map[String, Int] sizes = {}
  }
  call greet { input: name = name }
  output { File out = greet.out }
}
`;

const DRAFT_2 = `task t { String s command { echo \${s} } }
workflow old {
  String who
  Int n = 3
  call t { input: s = who }
  String after = "not an input"
}
`;

const param = (name: string, value: string | number | boolean, files?: string[]): TaskParameter => ({
  name,
  prefix: '',
  value,
  text: String(value),
  ...(files && { files }),
});

describe('WDL input declarations', () => {
  it('reads the workflow name and its input section (WDL 1.0), skipping comments and command text', () => {
    const declared = workflowInputs(WDL_1);
    assert.equal(declared.workflow, 'hello');
    assert.deepEqual(
      declared.inputs.map((i) => [i.name, i.type, i.optional, i.hasDefault]),
      [
        ['name', 'String', false, false],
        ['times', 'Int', false, true],
        ['ratio', 'Float', false, true],
        ['loud', 'Boolean', false, true],
        ['reference', 'File', true, false],
        ['tags', 'Array[String]+', false, false],
        ['counts', 'Array[Int]', false, true],
        ['sizes', 'Map[String,Int]', false, true],
      ],
    );
  });

  it('reads draft-2 declarations before the first call', () => {
    const declared = workflowInputs(DRAFT_2);
    assert.equal(declared.workflow, 'old');
    assert.deepEqual(
      declared.inputs.map((i) => i.name),
      ['who', 'n'],
    );
  });

  it('refuses a file without a workflow', () => {
    assert.throws(() => workflowInputs('version 1.0\ntask t { command <<< >>> }'), /no workflow/);
  });
});

describe('WDL inputs JSON from job parameters', () => {
  const declared = workflowInputs(WDL_1);

  it('types each value from its declaration, keeping strings as given and dropping the quotes the client keeps', () => {
    const json = wdlInputsJson(
      declared,
      [
        param('hello.name', '"Ada Lovelace"'),
        param('hello.times', '3'),
        param('hello.ratio', '1.25'),
        param('hello.loud', 'TRUE'),
        param('hello.tags', '["a", "b"]'),
        param('hello.counts', '1, 2,3'),
        param('hello.sizes', '{"x": 1}'),
        param('hello.reference', '/data/ref.fa', ['/data/ref.fa']),
      ],
      null,
    );
    assert.deepEqual(json, {
      'hello.name': 'Ada Lovelace',
      'hello.times': 3,
      'hello.ratio': 1.25,
      'hello.loud': true,
      'hello.tags': ['a', 'b'],
      'hello.counts': [1, 2, 3],
      'hello.sizes': { x: 1 },
      'hello.reference': '/data/ref.fa',
    });
  });

  it('takes a bare name as the workflow input of that name, and a call input as given', () => {
    const json = wdlInputsJson(declared, [param('name', 'x'), param('hello.tags', 'a'), param('hello.greet.name', "'y'")], null);
    assert.deepEqual(json, { 'hello.name': 'x', 'hello.tags': ['a'], 'hello.greet.name': 'y' });
  });

  it('takes the parametersFile first and the parameters over it', () => {
    const json = wdlInputsJson(declared, [param('hello.name', 'over')], { 'hello.name': 'file', 'hello.tags': ['t'], 'hello.times': 7 });
    assert.deepEqual(json, { 'hello.name': 'over', 'hello.tags': ['t'], 'hello.times': 7 });
  });

  it('a glob over a folder is an Array[File] of its files', () => {
    const files = wdlInputsJson(
      workflowInputs('workflow w { input { Array[File] fs } }'),
      [param('w.fs', '/in/fs/*.txt', ['/in/fs/a.txt', '/in/fs/b.txt'])],
      null,
    );
    assert.deepEqual(files, { 'w.fs': ['/in/fs/a.txt', '/in/fs/b.txt'] });
  });

  it('refuses a value not of its type, an unknown input and a missing required one, naming them', () => {
    const base = [param('hello.name', 'n'), param('hello.tags', 'a')];
    assert.throws(() => wdlInputsJson(declared, [...base, param('hello.times', '2.5')], null), /hello\.times must be a whole number.*Int/);
    assert.throws(() => wdlInputsJson(declared, [...base, param('hello.loud', 'yes')], null), /hello\.loud must be true or false/);
    assert.throws(() => wdlInputsJson(declared, [...base, param('hello.ratio', 'abc')], null), /hello\.ratio must be a number/);
    assert.throws(() => wdlInputsJson(declared, [param('hello.name', 'n'), param('hello.tags', '[]')], null), /non-empty array/);
    assert.throws(
      () => wdlInputsJson(declared, [...base, param('hello.nope', '1')], null),
      /hello\.nope is not an input of the workflow hello \(its inputs: hello\.name, /,
    );
    assert.throws(() => wdlInputsJson(declared, [param('hello.name', 'n')], null), /needs a value for hello\.tags \(Array\[String\]\+\)/);
  });
});
