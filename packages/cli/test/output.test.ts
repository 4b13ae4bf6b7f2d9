import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import type { CliContext } from '../src/context.js';
import { emitList } from '../src/output/emit-list.js';
import type { ListView } from '../src/output/list-view.js';
import { recordsOf } from '../src/output/records.js';
import { renderAligned, renderTabSeparated } from '../src/output/text-table.js';

interface Item {
  id: string;
  name: string;
  nested: { n: number };
}

const VIEW: ListView<Item> = {
  noun: 'items',
  columns: [
    { header: 'ID', value: (i) => i.id },
    { header: 'NAME', value: (i) => i.name },
  ],
  records: recordsOf<Item>(['id', 'name']),
};

function fakeContext(tty: boolean, env: NodeJS.ProcessEnv = {}): { ctx: CliContext; out: () => string; err: () => string } {
  const stdout = Object.assign(new PassThrough(), { isTTY: tty });
  const stderr = new PassThrough();
  let o = '';
  let e = '';
  stdout.on('data', (c: Buffer) => (o += c.toString()));
  stderr.on('data', (c: Buffer) => (e += c.toString()));
  return { ctx: { env, home: '/nonexistent', stdin: new PassThrough(), stdout, stderr }, out: () => o, err: () => e };
}

const ITEMS: Item[] = [
  { id: '1', name: 'short', nested: { n: 1 } },
  { id: '22', name: 'a\tlonger\nname', nested: { n: 2 } },
];

describe('output', () => {
  it('aligns columns under a header for a person, bold only when colour is on', () => {
    const t = {
      headers: ['ID', 'NAME'],
      rows: [
        ['1', 'x'],
        ['22', 'yy'],
      ],
    };
    assert.equal(renderAligned(t, { colour: false }), 'ID  NAME\n1   x\n22  yy\n');
    assert.equal(renderAligned(t, { colour: true }).split('\n')[0], '\x1b[1mID  NAME\x1b[0m');
  });

  it('gives a pipe tab-separated lines without a header, with tabs and line breaks in cells flattened', () => {
    assert.equal(
      renderTabSeparated({
        headers: ['A', 'B'],
        rows: [
          ['1', 'x\ty'],
          ['2', 'l1\nl2'],
        ],
      }),
      '1\tx y\n2\tl1 l2\n',
    );
  });

  it('writes the aligned table with a header when stdout is a terminal, and plain TSV when it is not', async () => {
    const tty = fakeContext(true, { NO_COLOR: '1' });
    await emitList(ITEMS, VIEW, { outputFormat: 'table' }, tty.ctx);
    assert.equal(tty.out(), 'ID  NAME\n1   short\n22  a longer name\n');
    const pipe = fakeContext(false);
    await emitList(ITEMS, VIEW, { outputFormat: 'table' }, pipe.ctx);
    assert.equal(pipe.out(), '1\tshort\n22\ta longer name\n');
  });

  it('csv and json carry the records; --all-fields flattens every field', async () => {
    const csv = fakeContext(false);
    await emitList(ITEMS, VIEW, { outputFormat: 'csv' }, csv.ctx);
    assert.equal(csv.out(), 'id,name\n1,short\n22,"a\tlonger\nname"\n');
    const all = fakeContext(false);
    await emitList(ITEMS, VIEW, { outputFormat: 'csv', allFields: true }, all.ctx);
    assert.equal(all.out().split('\n')[0], 'id,name,nested.n');
    const json = fakeContext(true);
    await emitList(ITEMS, VIEW, { outputFormat: 'json' }, json.ctx);
    assert.deepEqual(JSON.parse(json.out()), ITEMS);
  });

  it('an empty list says so on stderr; json and csv still print their empty document', async () => {
    const table = fakeContext(true);
    await emitList([], VIEW, { outputFormat: 'table' }, table.ctx);
    assert.equal(table.out(), '');
    assert.equal(table.err(), 'No items found\n');
    const csv = fakeContext(false);
    await emitList([], VIEW, { outputFormat: 'csv' }, csv.ctx);
    assert.equal(csv.out(), 'id,name\n');
  });
});
