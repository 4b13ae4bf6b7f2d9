import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, databaseUrlOf, loadConfig } from '@runyard/server';

const dir = mkdtempSync(path.join(os.tmpdir(), 'runyard-config-'));
let n = 0;
/** A config file holding this text (JSON.stringify'd unless already a string). */
function configFile(content: unknown): string {
  const file = path.join(dir, `config-${n++}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** The ConfigError loadConfig throws for this environment. */
function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (e) {
    assert.ok(e instanceof ConfigError, `not a ConfigError: ${e}`);
    assert.ok(
      e.problems.every((p) => e.message.includes(p)),
      'the message lists every problem',
    );
    return e.problems;
  }
  assert.fail('loadConfig accepted a bad configuration');
}

describe('configuration (loadConfig)', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.port, 8080);
    assert.equal(c.dataDir, path.resolve('./.runyard-data'));
    assert.equal(c.databaseUrl, '');
    assert.equal(c.logLevel, 'info');
    assert.equal(databaseUrlOf(c), `sqlite:${path.join(path.resolve('./.runyard-data'), 'runyard.db')}`);
  });

  it('reads RUNYARD_* variables, converting numbers and resolving the data directory', () => {
    const c = loadConfig({
      RUNYARD_HOST: '0.0.0.0',
      RUNYARD_PORT: '9000',
      RUNYARD_DATA_DIR: 'some/dir',
      RUNYARD_DATABASE_URL: 'postgres://u@db:5432/runyard',
      RUNYARD_LOG_LEVEL: 'warn',
      RUNYARD_APIKEY: 'a CLI variable, not the server’s',
      PATH: '/usr/bin',
    });
    assert.deepEqual(
      [c.host, c.port, c.dataDir, c.databaseUrl, c.logLevel],
      ['0.0.0.0', 9000, path.resolve('some/dir'), 'postgres://u@db:5432/runyard', 'warn'],
    );
    assert.equal(databaseUrlOf(c), 'postgres://u@db:5432/runyard');
  });

  it('reads RUNYARD_CONFIG_FILE, and the environment overrides it', () => {
    const file = configFile({ port: 9100, host: '0.0.0.0', logLevel: 'debug' });
    const fromFile = loadConfig({ RUNYARD_CONFIG_FILE: file });
    assert.deepEqual([fromFile.port, fromFile.host, fromFile.logLevel], [9100, '0.0.0.0', 'debug']);
    const both = loadConfig({ RUNYARD_CONFIG_FILE: file, RUNYARD_PORT: '9200' });
    assert.deepEqual([both.port, both.host, both.logLevel], [9200, '0.0.0.0', 'debug']);
    assert.equal(loadConfig({ RUNYARD_PORT: '9200' }, { port: 9300 }).port, 9300, 'explicit overrides win');
  });

  it('reports every bad key at once, each by name', () => {
    const file = configFile({ prot: 1, publicUrl: 'ftp://x', port: '80' });
    const problems = problemsOf({
      RUNYARD_CONFIG_FILE: file,
      RUNYARD_HOST: '',
      RUNYARD_LOG_LEVEL: 'loud',
      RUNYARD_DATABASE_URL: 'mysql://x',
      RUNYARD_DATA_DIR: '',
    });
    for (const name of ['prot', 'publicUrl', 'port', 'RUNYARD_HOST', 'RUNYARD_LOG_LEVEL', 'RUNYARD_DATABASE_URL', 'RUNYARD_DATA_DIR']) {
      assert.equal(problems.filter((p) => p.includes(name)).length, 1, `${name} in ${JSON.stringify(problems)}`);
    }
    assert.equal(problems.length, 7);
  });

  it('refuses ports that are not integers from 0 to 65535', () => {
    for (const port of ['abc', '70000', '-1', '80.5', '0x50', '']) {
      assert.match(problemsOf({ RUNYARD_PORT: port }).join(), /RUNYARD_PORT/, port);
    }
    assert.equal(loadConfig({ RUNYARD_PORT: '0' }).port, 0);
  });

  it('wants a TLS certificate and key together', () => {
    assert.match(problemsOf({ RUNYARD_TLS_CERT_FILE: '/x/cert.pem' }).join(), /RUNYARD_TLS_CERT_FILE and RUNYARD_TLS_KEY_FILE/);
  });

  it('reports a config file that is missing, not JSON, or not an object', () => {
    for (const file of [path.join(dir, 'missing.json'), configFile('{port: 1'), configFile([1, 2])]) {
      const problems = problemsOf({ RUNYARD_CONFIG_FILE: file });
      assert.equal(problems.length, 1);
      assert.match(problems[0], /RUNYARD_CONFIG_FILE/);
      assert.ok(problems[0].includes(file));
    }
  });

  it('is frozen', () => {
    const c = loadConfig({});
    assert.ok(Object.isFrozen(c));
    assert.throws(() => {
      (c as { port: number }).port = 1;
    }, TypeError);
    assert.equal(c.port, 8080);
  });
});
