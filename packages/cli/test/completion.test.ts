import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { runCli, tempDir } from './support/run-cli.js';

const has = (shell: string) => spawnSync(shell, ['-c', 'exit 0'], { stdio: 'ignore' }).status === 0;
const JOB_SUBCOMMANDS = [
  'run',
  'status',
  'details',
  'list',
  'abort',
  'archive',
  'unarchive',
  'clone',
  'resume',
  'logs',
  'results',
  'workdir',
  'related',
  'cost',
];

/** The script `runyard completion <shell>` prints, saved to a file. */
async function script(shell: string): Promise<string> {
  const r = await runCli(['completion', shell]);
  assert.equal(r.code, 0, r.stderr);
  const file = path.join(tempDir('runyard-completion-'), `runyard.${shell}`);
  writeFileSync(file, r.stdout);
  return file;
}

function run(shell: string, args: string[]): string {
  const r = spawnSync(shell, args, { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: tempDir('runyard-home-') } });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

describe('runyard completion', () => {
  it('refuses a shell it does not know', async () => {
    const r = await runCli(['completion', 'tcsh']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /Allowed choices are bash, zsh, fish/);
  });

  describe('bash', { skip: !has('bash') && 'bash is not installed' }, () => {
    let file: string;
    before(async () => (file = await script('bash')));
    /** COMPREPLY after the completion function ran on these words, the last one being completed. */
    const complete = (words: string[]) =>
      run('bash', [
        '-c',
        `source "$1"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _runyard; printf '%s\\n' "\${COMPREPLY[@]}"`,
        'bash',
        file,
      ])
        .split('\n')
        .filter(Boolean);

    it('is valid bash', () => {
      run('bash', ['-n', file]);
    });

    it('completes commands, subcommands, options and choices, skipping option values', () => {
      assert.deepEqual(complete(['runyard', 'job', '']), [...JOB_SUBCOMMANDS, 'help']);
      assert.deepEqual(complete(['runyard', 'pro']), ['project']);
      assert.deepEqual(
        complete(['runyard', '--profile', 'job', 'job', 'st']),
        ['status'],
        '"job" as a value of --profile is not the command',
      );
      assert.deepEqual(complete(['runyard', 'job', 'status', '--job-']), ['--job-id']);
      assert.deepEqual(complete(['runyard', 'job', 'run', '--execution-platform', '']), ['aws', 'azure', 'hpc']);
      assert.deepEqual(complete(['runyard', 'completion', 'x', '--no-c']), ['--no-color']);
      assert.deepEqual(complete(['runyard', 'interactive-session', '']), ['list', 'create', 'status', 'pause', 'resume', 'open', 'help']);
      assert.deepEqual(complete(['runyard', 'interactive-session', 'create', '--session-type', '']), [
        'jupyter',
        'vscode',
        'spark',
        'rstudio',
      ]);
    });
  });

  describe('zsh', { skip: !has('zsh') && 'zsh is not installed' }, () => {
    let file: string;
    before(async () => (file = await script('zsh')));

    it('is valid zsh', () => {
      run('zsh', ['-n', file]);
    });

    it('finds the command path and offers its subcommands with their descriptions', () => {
      // compdef comes from compinit, which an interactive zsh loads; a stand-in lets the script be sourced here.
      const out = run('zsh', [
        '-fc',
        'compdef() { :; }; source "$1"; s=$(_runyard_state --profile p job); print -r -- $s; _runyard_subcommands "${s#*:}"',
        'zsh',
        file,
      ]);
      const [state, ...subs] = out.trim().split('\n');
      assert.equal(state, '0:runyard job');
      assert.deepEqual(
        subs.map((l) => l.split(':')[0]),
        [...JOB_SUBCOMMANDS, 'help'],
      );
      assert.match(subs[0], /^run:launch a workflow/);
    });
  });

  describe('fish', { skip: !has('fish') && 'fish is not installed' }, () => {
    let file: string;
    before(async () => (file = await script('fish')));

    it('is valid fish', () => {
      run('fish', ['--no-execute', file]);
    });

    it('completes "runyard job " to the job subcommands, and option values from their choices', () => {
      const candidates = (line: string) =>
        run('fish', ['-c', `source $argv[1]; complete -C '${line}'`, file])
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('\t')[0]);
      assert.deepEqual(candidates('runyard job ').sort(), [...JOB_SUBCOMMANDS, 'help'].sort());
      assert.deepEqual(candidates('runyard job run --execution-platform '), ['aws', 'azure', 'hpc']);
      assert.deepEqual(candidates('runyard --profile p job st'), ['status']);
    });
  });
});
