import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isJobLogLine } from '../../src/engines/wdl/miniwdl-task/log-split.mjs';

/** Which of miniwdl's stderr lines the job's log shows (the rest are only in engine.log). */
describe("miniwdl's log, split between the job's log and engine.log", () => {
  const choose = (lines: string[]) => {
    let previous: boolean | null = null;
    return lines.map((line) => (previous = isJobLogLine(line, previous)));
  };

  it("keeps miniwdl's default level and the calls' stderr; a message's continuation lines go where it went", () => {
    assert.deepEqual(
      choose([
        'a line before any message',
        '2026-12-07 10:00:00.001 wdl.w:hello NOTICE workflow start :: name: "hello"',
        '2026-12-07 10:00:00.002 wdl.w:hello.t:call-greet INFO command :: command: "echo hi"',
        '  continued INFO',
        '2026-12-07 10:00:00.003 wdl.w:hello.t:call-greet.stderr VERBOSE greet says hi',
        '2026-12-07 10:00:00.004 wdl.w:hello.t:call-greet DEBUG docker :: x: 1',
        '2026-12-07 10:00:00.005 wdl.w:hello.t:call-greet WARNING call subdirectory already exists',
        '2026-12-07 10:00:00.006 miniwdl-run ERROR RunFailed :: dir: "/w"',
        'Traceback (most recent call last):',
        '2026-12-07 10:00:00.007 wdl.w:hello VERBOSE ready',
      ]),
      [false, true, false, false, true, false, true, true, true, false],
    );
  });
});
