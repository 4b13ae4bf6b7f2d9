import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describeServer } from '../src/commands/cromwell/common.js';

describe('cromwell status: the line for a person', () => {
  const base = {
    _id: '6b08bf6120b1051929413b47',
    workspace: '6b08bf6120b1051929413b40',
    createdAt: '2026-11-26T00:00:00.000Z',
    updatedAt: '2026-11-26T00:00:00.000Z',
  };

  it('names a Cromwell server that Runyard runs, where and since when', () => {
    const line = describeServer({
      ...base,
      status: 'Running',
      driver: 'cromwell',
      url: 'http://127.0.0.1:41234',
      managedProcess: { host: 'node-1', port: 41234, startedAt: '2026-11-26T10:00:00.000Z' },
    });
    assert.equal(
      line,
      `The WDL engine server ${base._id} of workspace ${base.workspace} (cromwell at http://127.0.0.1:41234, run by Runyard on node-1 since 2026-11-26T10:00:00.000Z) is Running.`,
    );
  });

  it('says why a server is stopped', () => {
    const line = describeServer({
      ...base,
      status: 'Stopped',
      driver: 'cromwell',
      statusMessage: 'The Cromwell server stopped: it exited with code 1',
    });
    assert.equal(
      line,
      `The WDL engine server ${base._id} of workspace ${base.workspace} (cromwell) is Stopped: The Cromwell server stopped: it exited with code 1`,
    );
  });
});
