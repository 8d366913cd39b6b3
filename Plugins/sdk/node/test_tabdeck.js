'use strict';
// Tests of the Node SDK: `node --test Plugins/sdk/node/`. The sort, filter, sections and find
// run the shared cases (../cases, the host's own answers); the protocol is driven in-process.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { PassThrough } = require('node:stream');
const sdk = require('./tabdeck.js');

const CASES = path.join(__dirname, '..', 'cases');
const cases = fs.readdirSync(CASES).filter((f) => f.endsWith('.json')).sort()
  .map((f) => JSON.parse(fs.readFileSync(path.join(CASES, f), 'utf8')));

/** The case's view: its rows filtered, then sorted (within sections when it has them). */
function view(c, sort, filter) {
  const rows = filter ? sdk.filterRows(c.rows, filter) : c.rows;
  return c.sections ? sdk.sortRowsInSections(rows, sort || [], c.columns, c.sections) : sdk.sortRows(rows, sort || [], c.columns);
}
const ids = (rows) => rows.map((r) => r.id);

test('the shared cases are there', () => {
  assert.ok(cases.length >= 6, `cases in ${CASES}`);
});

for (const c of cases) {
  test(`case ${c.name}: sorts`, () => {
    c.sorts.forEach((s, i) => assert.deepEqual(ids(view(c, s.sort)), s.ids, `${c.name}.sorts[${i}]`));
  });
  test(`case ${c.name}: filters`, () => {
    c.filters.forEach((f, i) => {
      assert.deepEqual(ids(view(c, f.sort, f.filter)), f.ids, `${c.name}.filters[${i}]: ${f.filter}`);
      if (f.sections) {
        const counted = sdk.countSections(sdk.filterRows(c.rows, f.filter), c.sections);
        assert.deepEqual(Object.fromEntries(counted.map((s) => [s.id, s.count])), f.sections);
      }
    });
  });
  test(`case ${c.name}: finds`, () => {
    c.finds.forEach((f, i) => {
      const got = sdk.findRow(view(c, f.sort, f.filter), f);
      assert.deepEqual(got, { offset: f.offset, row: f.row, wrapped: f.wrapped }, `${c.name}.finds[${i}]: ${JSON.stringify(f)}`);
    });
  });
}

/** A plugin serving one case's table, with every capability the SDK answers for it. */
class CasePlugin extends sdk.TablePlugin {
  constructor(c) { super(); this.c = c; this.name = 'cases'; this.version = '1.0.0'; }
  capabilities() { return { sort: true, multiSort: true, filter: true, sections: !!this.c.sections, actions: true, locate: true, find: true }; }
  columns() { return this.c.columns; }
  allRows() { return this.c.rows; }
  sections() { return this.c.sections || null; }
  actions() { return [sdk.actionSpec('touch', 'Touch', { rows: 'many', input: [sdk.field('note', 'Note', { required: true })] })]; }
  async action(table, action, rows, input) {
    for (let i = 1; i <= 3; i++) this.progress(i, 3, 'touching');
    return `touched ${rows.length}: ${input.note}`;
  }
}

/** Runs `plugin` on the lines given, returns the messages it wrote. */
async function exchange(plugin, lines) {
  const input = new PassThrough(), output = new PassThrough();
  let text = '';
  output.on('data', (d) => { text += d; });
  const done = plugin.run({ input, output });
  for (const l of lines) input.write(typeof l === 'string' ? l + '\n' : l);
  input.end();
  assert.equal(await done, 0);
  assert.ok(text.endsWith('\n') && !text.includes('\n\n'), 'one JSON object per line');
  return text.trim().split('\n').map((l) => JSON.parse(l));
}

const req = (id, method, params) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
const hello = [req(1, 'initialize', { protocolVersion: 1, host: { name: 'test', version: '0' }, capabilities: {} }), req(2, 'open', { args: {} })];

test('the protocol: ids echoed, pages sorted and filtered within sections, find, locate', async () => {
  const c = cases.find((x) => x.name === 'sections');
  const s = c.filters[1];
  const out = await exchange(new CasePlugin(c), [...hello,
    req('r-3', 'rows', { table: 'root', offset: 1, limit: 2, sort: s.sort, filter: s.filter, generation: 7 }),
    req(4, 'find', { table: 'root', text: 'LEEK', from: 0, sort: [], filter: null, generation: 8 }),
    req(5, 'locate', { table: 'root', rows: ['s6'], sort: s.sort, filter: s.filter, generation: 9 }),
    req(6, 'rows', { table: 'nope', offset: 0, limit: 1, sort: [], filter: null, generation: 1 })]);
  assert.equal(out[0].result.protocolVersion, 1);
  assert.equal(out[1].result.table, 'root');
  assert.deepEqual(out[1].result.sections.map((x) => x.count), [3, 2, 1]);
  const page = out[2];
  assert.equal(page.id, 'r-3');
  assert.deepEqual(page.result.rows.map((r) => r.id), s.ids.slice(1, 3));
  assert.equal(page.result.generation, 7);
  assert.equal(page.result.total, s.ids.length);
  assert.deepEqual(Object.fromEntries(page.result.sections.map((x) => [x.id, x.count])), s.sections);
  assert.deepEqual(out[3], { jsonrpc: '2.0', id: 4, result: { generation: 8, offset: 3, row: 's4', wrapped: false } });
  assert.deepEqual(out[4].result, { row: 's6', offset: 3 });
  assert.equal(out[5].error.code, sdk.UNKNOWN_TABLE);
});

test('bad input: a line that is not JSON is -32700 with id null, a too long line is refused, the plugin goes on', async () => {
  const big = Buffer.alloc(sdk.MAX_LINE_BYTES + 10, 0x61);
  const out = await exchange(new CasePlugin(cases[0]), ['{not json', big, Buffer.from('\n'), ...hello, req(3, 'nope', {})]);
  assert.deepEqual(out[0], { jsonrpc: '2.0', id: null, error: out[0].error });
  assert.equal(out[0].error.code, sdk.PARSE_ERROR);
  assert.equal(out[1].id, null);
  assert.equal(out[1].error.code, sdk.INVALID_REQUEST);
  assert.equal(out[3].result.table, 'root');
  assert.equal(out[4].error.code, sdk.METHOD_NOT_FOUND);
});

test('sort keys are checked: unknown column -32602, a column not sortable -32002', async () => {
  const c = { ...cases[0], columns: cases[0].columns.map((col, i) => (i === 0 ? { ...col, sortable: false } : col)) };
  const out = await exchange(new CasePlugin(c), [...hello,
    req(3, 'rows', { table: 'root', offset: 0, limit: 5, sort: [{ column: 'zz', direction: 'asc' }], filter: null, generation: 1 }),
    req(4, 'rows', { table: 'root', offset: 0, limit: 5, sort: [{ column: c.columns[0].id, direction: 'asc' }], filter: null, generation: 1 })]);
  assert.equal(out[2].error.code, sdk.INVALID_PARAMS);
  assert.equal(out[3].error.code, sdk.NOT_SUPPORTED);
});

test('$/cancel: a request not started yet is answered -32800, others are not affected', async () => {
  class Slow extends CasePlugin {
    async rows(...a) { await new Promise((r) => setTimeout(r, 50)); return super.rows(...a); }
  }
  const rows = (id) => req(id, 'rows', { table: 'root', offset: 0, limit: 2, sort: [], filter: null, generation: 1 });
  const out = await exchange(new Slow(cases[0]), [...hello, rows(10), rows(11), JSON.stringify({ jsonrpc: '2.0', method: '$/cancel', params: { id: 11 } }), rows(12)]);
  const by = Object.fromEntries(out.map((m) => [m.id, m]));
  assert.equal(by[10].result.rows.length, 2);
  assert.equal(by[11].error.code, sdk.REQUEST_CANCELLED);
  assert.equal(by[12].result.rows.length, 2);
});

test('actions: rows and input checked, progress sent, the outcome a message', async () => {
  const out = await exchange(new CasePlugin(cases[0]), [...hello,
    req(3, 'action', { table: 'root', action: 'touch', rows: ['a', 'b'], input: { note: 'hi' } }),
    req(4, 'action', { table: 'root', action: 'touch', rows: ['a'], input: {} }),
    req(5, 'action', { table: 'root', action: 'nope', rows: ['a'] })]);
  const progress = out.filter((m) => m.method === 'progress');
  assert.deepEqual(progress.map((m) => m.params.done), [1, 2, 3]);
  const answers = out.filter((m) => 'id' in m);
  assert.deepEqual(answers[2].result, { message: 'touched 2: hi' });
  assert.equal(answers[3].error.code, sdk.INVALID_PARAMS);
  assert.deepEqual(answers[3].error.data, { field: 'note' });
  assert.equal(answers[4].error.code, sdk.INVALID_PARAMS);
});

test('compareText orders by scalar value, not UTF-16 code unit', () => {
  assert.equal(sdk.compareText('\uFF21', '\u{1F600}'), -1);
  assert.equal(sdk.compareText('B', 'a'), -1);
  assert.equal(sdk.compareText('a', '\u00e9'), -1);
});
