import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RunyardValueError } from '../../src/errors.js';
import { fixBooleanStrings } from '../../src/jobs/boolean-strings.js';

describe('fixBooleanStrings', () => {
  it('turns "True"/"False"/"true"/"false" into booleans at any depth', () => {
    const payload = {
      resumable: 'True',
      saveProcessLogs: 'false',
      batch: { enabled: 'true', dockerLogin: 'False', jobQueue: 'Q' },
      list: ['true', 'x', ['False']],
      other: 'TRUE',
      n: 3,
      none: null,
    };
    assert.deepEqual(fixBooleanStrings(payload), {
      resumable: true,
      saveProcessLogs: false,
      batch: { enabled: true, dockerLogin: false, jobQueue: 'Q' },
      list: [true, 'x', [false]],
      other: 'TRUE',
      n: 3,
      none: null,
    });
  });

  it('leaves textValue and textValues as text', () => {
    const payload = {
      parameters: [
        { prefix: '--', name: 'flag', parameterKind: 'textValue', textValue: 'true' },
        { prefix: '--', name: 'flags', textValues: ['False', 'true'] },
      ],
    };
    assert.deepEqual(fixBooleanStrings(payload), payload);
  });

  it('turns a string columnIndex into an integer, and rejects one that is not a number', () => {
    const payload = { parameters: [{ name: 'reads', parameterKind: 'arrayFileColumn', columnName: 'fastq', columnIndex: '2' }] };
    assert.deepEqual(fixBooleanStrings(payload), {
      parameters: [{ name: 'reads', parameterKind: 'arrayFileColumn', columnName: 'fastq', columnIndex: 2 }],
    });
    assert.throws(
      () => fixBooleanStrings({ parameters: [{ name: 'reads', columnIndex: 'two' }] }),
      (err: unknown) => err instanceof RunyardValueError && err.message === "Invalid columnIndex value 'two' for parameter 'reads'",
    );
  });

  it('does not change its input', () => {
    const payload = { resumable: 'true', parameters: [{ columnIndex: '1', textValue: 'x' }] };
    const before = structuredClone(payload);
    const fixed = fixBooleanStrings(payload);
    assert.deepEqual(payload, before);
    fixed.parameters[0].textValue = 'changed';
    assert.equal(payload.parameters[0].textValue, 'x');
  });

  it('does not treat inherited property names as booleans', () => {
    assert.deepEqual(fixBooleanStrings({ a: 'toString', b: 'constructor' }), { a: 'toString', b: 'constructor' });
  });
});
