import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { chooseLogFormat, logStreamFor } from '../../src/log-format.js';

describe('log format', () => {
  it('auto: pretty lines on a terminal, JSON lines on a pipe', () => {
    assert.equal(chooseLogFormat('auto', true), 'pretty');
    assert.equal(chooseLogFormat('auto', false), 'json');
  });

  it('json or pretty, when asked, whatever stdout is', () => {
    for (const isTTY of [true, false]) {
      assert.equal(chooseLogFormat('json', isTTY), 'json');
      assert.equal(chooseLogFormat('pretty', isTTY), 'pretty');
    }
  });

  it('RUNYARD_LOG_FORMAT: auto by default, json or pretty; anything else is refused, naming the variable', () => {
    assert.equal(loadConfig({}).logFormat, 'auto');
    assert.equal(loadConfig({ RUNYARD_LOG_FORMAT: 'json' }).logFormat, 'json');
    assert.equal(loadConfig({ RUNYARD_LOG_FORMAT: 'pretty' }).logFormat, 'pretty');
    assert.throws(
      () => loadConfig({ RUNYARD_LOG_FORMAT: 'yaml' }),
      (e: unknown) => e instanceof ConfigError && /RUNYARD_LOG_FORMAT="yaml"/.test(e.message),
    );
  });

  it('json writes through pino (no stream of its own); pretty through a stream', () => {
    assert.equal(logStreamFor('json'), undefined);
    assert.equal(typeof logStreamFor('pretty')?.write, 'function');
  });
});
