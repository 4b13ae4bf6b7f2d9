import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { RunyardValueError } from '../../src/errors.js';
import { parseJobConfig, readJobConfigFile, stripTrailingComment } from '../../src/jobs/job-config.js';

const nextflow = (text: string) => parseJobConfig(text, { fileName: 'job.config', workflowType: 'nextflow' });
const wdl = (text: string) => parseJobConfig(text, { fileName: 'job.config', workflowType: 'wdl' });
const values = (text: string) => nextflow(text).params.map((p) => [p.name, p.value]);

/** Asserts a RunyardValueError whose message equals `message`. */
function rejects(fn: () => unknown, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof RunyardValueError, `expected a RunyardValueError, got ${String(err)}`);
    assert.equal(err.message, message);
    return true;
  });
}

const RNATOY = `params {
    reads   = s3://lifebit-featured-datasets/pipelines/rnatoy-data
    genome  = s3://lifebit-featured-datasets/pipelines/rnatoy-data/ggal_1_48850000_49020000.Ggal71.500bpflank.fa
    annot   = s3://lifebit-featured-datasets/pipelines/rnatoy-data/ggal_1_48850000_49020000.bed.gff
}
`;

describe('job-config file: pairs', () => {
  it('reads the rnatoy example: one pair per line, in file order, values as text', () => {
    assert.deepEqual(nextflow(RNATOY), {
      params: [
        { name: 'reads', value: 's3://lifebit-featured-datasets/pipelines/rnatoy-data' },
        { name: 'genome', value: 's3://lifebit-featured-datasets/pipelines/rnatoy-data/ggal_1_48850000_49020000.Ggal71.500bpflank.fa' },
        { name: 'annot', value: 's3://lifebit-featured-datasets/pipelines/rnatoy-data/ggal_1_48850000_49020000.bed.gff' },
      ],
      warnings: [],
    });
  });

  it('keeps file order, accepts params{ without a space, CRLF line ends and = inside a value', () => {
    assert.deepEqual(values('params{\r\n  z = 1\r\n  a = x=y\r\n  m = true\r\n}\r\n'), [
      ['z', '1'],
      ['a', 'x=y'],
      ['m', 'true'],
    ]);
  });

  it('ignores settings outside the params block and reads every params block in order', () => {
    const text = 'process {\n  cpus = 2\n}\nparams {\n  a = 1\n}\ndocker.enabled = true\nparams {\n  b = 2\n}\n';
    assert.deepEqual(values(text), [
      ['a', '1'],
      ['b', '2'],
    ]);
  });

  it('allows an empty params block and blank lines', () => {
    assert.deepEqual(nextflow('params {\n\n}\n'), { params: [], warnings: [] });
  });
});

describe('job-config file: comments', () => {
  it('removes trailing // and # comments only when preceded by whitespace', () => {
    const text = [
      'params {',
      '  a = s3://bucket/key',
      '  b = a#b',
      '  c = x # a comment',
      '  d = y // another comment',
      '  e = s3://bucket/key//double',
      '}',
    ].join('\n');
    assert.deepEqual(values(text), [
      ['a', 's3://bucket/key'],
      ['b', 'a#b'],
      ['c', 'x'],
      ['d', 'y'],
      ['e', 's3://bucket/key//double'],
    ]);
  });

  it('skips whole-line comments, block comments, and comments after the braces', () => {
    const text = [
      '/* params {',
      '   old = 1',
      '} */',
      'params { // inputs',
      '  // commented = out',
      '  # also = out',
      '  /* and = this */',
      '  a = 1',
      '} # end',
    ].join('\n');
    assert.deepEqual(values(text), [['a', '1']]);
  });

  it('keeps comment marks inside quotes', () => {
    assert.deepEqual(values('params {\n  title = "run # 1 // final"\n}'), [['title', 'run # 1 // final']]);
    assert.equal(stripTrailingComment(`x = 'a #b' # c`), `x = 'a #b' `);
  });
});

describe('job-config file: quotes and lists', () => {
  it('strips the quotes around a value for nextflow', () => {
    assert.deepEqual(values(`params {\n  a = "hello world"\n  b = 'single'\n  c = "a" + "b"\n}`), [
      ['a', 'hello world'],
      ['b', 'single'],
      ['c', '"a" + "b"'],
    ]);
  });

  it('keeps quotes for wdl and only trims the spaces around the value', () => {
    assert.deepEqual(wdl(`params {\n  wf.name   =   "hello"  \n  wf.n = 3\n}`).params, [
      { name: 'wf.name', value: '"hello"' },
      { name: 'wf.n', value: '3' },
    ]);
  });

  it('sends a bracketed list as text and warns with the value as received', () => {
    assert.deepEqual(nextflow('params {\n  samples = [1, 2, "x"]\n}'), {
      params: [{ name: 'samples', value: '[1, 2, "x"]' }],
      warnings: [`Line 2 of job.config: the value of 'samples' looks like a list; it is sent as the text [1, 2, "x"]`],
    });
  });

  it('does not warn about lists for wdl, nor about a quoted list', () => {
    assert.deepEqual(wdl('params {\n  wf.samples = [1, 2]\n}'), { params: [{ name: 'wf.samples', value: '[1, 2]' }], warnings: [] });
    assert.deepEqual(nextflow(`params {\n  s = '[1, 2]'\n}`), { params: [{ name: 's', value: '[1, 2]' }], warnings: [] });
  });
});

describe('job-config file: errors', () => {
  it('a file without a params block (the message names the file, no line)', () => {
    rejects(
      () => nextflow('process {\n  cpus = 2\n}\n'),
      "No params block found in job.config: it must contain 'params {', one name = value pair per line, and '}'.",
    );
    rejects(
      () => nextflow(''),
      "No params block found in job.config: it must contain 'params {', one name = value pair per line, and '}'.",
    );
  });

  it('a block opened and closed on the same line', () => {
    rejects(
      () => nextflow('// inputs\nparams { reads = s3://b/k }\n'),
      "Line 2 of job.config: the params block is opened and closed on the same line; write one name = value pair per line: 'params { reads = s3://b/k }'",
    );
    rejects(
      () => nextflow('params {}'),
      "Line 1 of job.config: the params block is opened and closed on the same line; write one name = value pair per line: 'params {}'",
    );
  });

  it('pairs on the opening line', () => {
    rejects(
      () => nextflow('params { reads = x\n}'),
      "Line 1 of job.config: not a name = value pair; start the pairs on the line after 'params {': 'params { reads = x'",
    );
  });

  it("a line without '=' (the reference client's message, plus the line)", () => {
    const text = 'params {\n    reads    s3://lifebit-featured-datasets/pipelines/rnatoy-data\n}';
    rejects(
      () => parseJobConfig(text, { fileName: 'tests/test_data/wrong_params.config', workflowType: 'nextflow' }),
      "Please, specify your parameters in tests/test_data/wrong_params.config using the '=' as spacer. E.g: name = my_name. Line 2: 'reads    s3://lifebit-featured-datasets/pipelines/rnatoy-data'",
    );
  });

  it('a line that is not a name = value pair', () => {
    rejects(() => nextflow('params {\n  a = 1\n  = 2\n}'), "Line 3 of job.config: not a name = value pair: '= 2'");
    rejects(() => nextflow('params {\n  two words = 2\n}'), "Line 2 of job.config: not a name = value pair: 'two words = 2'");
    rejects(() => nextflow('params {\n  "quoted" = 2\n}'), `Line 2 of job.config: not a name = value pair: '"quoted" = 2'`);
  });

  it('a closing brace after a pair', () => {
    rejects(
      () => nextflow('params {\n  a = 1 }\n'),
      "Line 2 of job.config: the value of 'a' closes a bracket it never opened (the closing '}' of params goes on its own line): 'a = 1 }'",
    );
  });

  it('a pair with no value', () => {
    rejects(
      () => nextflow('params {\n  a = 1\n  b =   // nothing\n}'),
      "Line 3 of job.config: the parameter 'b' has no value: 'b =   // nothing'",
    );
  });

  it('a value spanning several lines: open quote, open bracket, triple quotes', () => {
    const spans = (line: string, name: string) =>
      rejects(
        () => nextflow(`params {\n  ${line}\n  more\n}`),
        `Line 2 of job.config: the value of '${name}' spans several lines, which is not supported; write it on one line: '${line}'`,
      );
    spans('a = "unclosed', 'a');
    spans('list = [1, 2,', 'list');
    spans('text = """', 'text');
    spans('call = max(1,', 'call');
  });

  it('a nested block', () => {
    rejects(
      () => nextflow('params {\n  a = 1\n  nested {\n    b = 2\n  }\n}'),
      "Line 3 of job.config: nested blocks are not supported inside the params block: 'nested {'",
    );
    rejects(
      () => nextflow('params {\n  map = [\n}'),
      "Line 2 of job.config: the value of 'map' spans several lines, which is not supported; write it on one line: 'map = ['",
    );
    rejects(
      () => nextflow('params {\n  m = {\n}'),
      "Line 2 of job.config: the value of 'm' opens a nested block, which is not supported: 'm = {'",
    );
  });

  it('a params block that is never closed (named by its opening line)', () => {
    rejects(() => nextflow('// x\nparams {\n  a = 1\n'), "Line 2 of job.config: the params block is not closed with '}': 'params {'");
  });
});

describe('readJobConfigFile', () => {
  it('reads and parses a file, and names a missing one', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'runyard-job-config-'));
    try {
      const file = path.join(dir, 'rnatoy.config');
      await writeFile(file, RNATOY);
      const parsed = await readJobConfigFile(file, 'nextflow');
      assert.deepEqual(
        parsed.params.map((p) => p.name),
        ['reads', 'genome', 'annot'],
      );
      const missing = path.join(dir, 'nope.config');
      await assert.rejects(readJobConfigFile(missing, 'nextflow'), new RunyardValueError(`The job-config file ${missing} does not exist.`));
      await assert.rejects(
        readJobConfigFile(dir, 'nextflow'),
        (err: unknown) => err instanceof RunyardValueError && err.message.startsWith(`Cannot read the job-config file ${dir}:`),
      );
      await writeFile(file, 'params {\n  a\n}');
      await assert.rejects(
        readJobConfigFile(file, 'wdl'),
        (err: unknown) => err instanceof RunyardValueError && err.message.includes(`parameters in ${file} using the '=' as spacer`),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
