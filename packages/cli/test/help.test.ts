import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runCli } from './support/run-cli.js';

/** The subcommands a help page lists (its "Commands:" section), without commander's `help`. */
function listedCommands(help: string): string[] {
  const section = /\nCommands:\n([\s\S]*?)(?:\n\n|$)/.exec(help)?.[1] ?? '';
  return section
    .split('\n')
    .map((l) => /^ {2}(\S+)/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined && n !== 'help');
}

/** Every command path, found by reading the help pages from the top, as a person would. */
async function everyCommand(env: Record<string, string>): Promise<Map<string, string>> {
  const pages = new Map<string, string>();
  const visit = async (path: string[]) => {
    const r = await runCli([...path, '--help'], { env });
    assert.equal(r.code, 0, `${path.join(' ')}: ${r.stderr}`);
    pages.set(path.join(' '), r.stdout);
    for (const sub of listedCommands(r.stdout)) await visit([...path, sub]);
  };
  await visit([]);
  return pages;
}

describe('runyard help', { timeout: 300_000 }, () => {
  it('every command has an Examples section, and every line fits the terminal width', async () => {
    for (const width of [80, 60]) {
      const pages = await everyCommand({ COLUMNS: String(width) });
      assert.ok(pages.size > 50, `found ${pages.size} commands`);
      for (const [path, help] of pages) {
        assert.match(help, /\nExamples:\n(?: {2}# .+\n)+ {2}\$ /, `runyard ${path} --help has examples`);
        for (const line of help.split('\n')) {
          // Only a single word too long for any line (a URL pattern) may stick out.
          const unbreakable = /^ *\S+$/.test(line);
          assert.ok(line.length <= width || unbreakable, `runyard ${path} --help at ${width} columns: "${line}"`);
        }
      }
    }
  });

  it('datasets --help wraps the descriptions of its subcommands to the width', async () => {
    const r = await runCli(['datasets', '--help'], { env: { COLUMNS: '60' } });
    assert.match(r.stdout, /\n {2}cp {10}copy a file or folder \(virtual, S3 or Azure\)\n {14}into a dataset/);
  });

  it('marks required options', async () => {
    const r = await runCli(['job', 'status', '--help'], { env: { COLUMNS: '200' } });
    assert.match(r.stdout, /--job-id <id> +id of the job \(required\)\n/);
    assert.doesNotMatch(r.stdout, /--output-format[^\n]*\(required\)/);
  });

  it('"runyard help job run" shows the help of job run, at any depth', async () => {
    const r = await runCli(['help', 'job', 'run']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Usage: runyard job run \[options\]\n/);
    const admin = await runCli(['help', 'admin', 'apikey', 'create']);
    assert.match(admin.stdout, /^Usage: runyard admin apikey create \[options\]\n/);
    const bad = await runCli(['help', 'job', 'runn']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^Error: "runn" is not a command of "runyard job"; choose from run, status/);
  });
});
