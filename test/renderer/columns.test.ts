import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_COLUMN_WIDTH,
  MIN_COLUMN_WIDTH,
  defaultPrefs,
  readPrefs,
  resizeColumn,
  toggleColumn,
  visibleColumns,
  widthOf,
  writePrefs,
  type ColumnMeta,
} from '../../renderer/src/logic/columns.js';

const COLS: ColumnMeta[] = [
  { key: 'id', width: 60, shown: true },
  { key: 'url', width: 380, shown: true, required: true },
  { key: 'status', width: 60, shown: true },
  { key: 'canonical', width: 260, shown: false },
];
const keys = (cols: ColumnMeta[]) => cols.map((c) => c.key);

test('nothing saved (or nothing readable): every column as its default says', () => {
  for (const raw of [null, '', 'not json', '42', '"x"', 'null', '[]']) {
    assert.deepEqual(keys(visibleColumns(readPrefs(raw, COLS), COLS)), ['id', 'url', 'status'], String(raw));
  }
  assert.deepEqual(readPrefs(null, COLS), defaultPrefs(COLS));
});

test("hide one, show one, resize one: written and read back the same, in the table's order", () => {
  let p = defaultPrefs(COLS);
  p = toggleColumn(p, COLS, 'canonical');
  p = toggleColumn(p, COLS, 'status');
  p = resizeColumn(p, 'url', 512.4);
  const back = readPrefs(writePrefs(p), COLS);
  assert.deepEqual(keys(visibleColumns(back, COLS)), ['id', 'url', 'canonical']);
  assert.equal(widthOf(back, COLS[1]!), 512);
  assert.equal(widthOf(back, COLS[0]!), 60, 'a column never dragged keeps its default');
  assert.equal(widthOf(resizeColumn(back, 'url', NaN), COLS[1]!), 380, 'NaN: back to the default');
});

test('a required column and the last one shown cannot be hidden', () => {
  const p = defaultPrefs(COLS);
  assert.deepEqual(toggleColumn(p, COLS, 'url'), p);
  const only: ColumnMeta[] = [
    { key: 'a', width: 10, shown: true },
    { key: 'b', width: 10, shown: false },
  ];
  const q = defaultPrefs(only);
  assert.deepEqual(toggleColumn(q, only, 'a'), q, 'the table keeps a column');
  assert.deepEqual(keys(visibleColumns(toggleColumn(toggleColumn(q, only, 'b'), only, 'a'), only)), ['b']);
  assert.deepEqual(toggleColumn(p, COLS, 'nope'), p, 'an unknown column changes nothing');
  // Saved without the required column (by hand, or an older version): it is shown anyway.
  assert.deepEqual(keys(visibleColumns(readPrefs(JSON.stringify({ shown: ['id'], known: ['id', 'url', 'status', 'canonical'] }), COLS), COLS)), ['id', 'url']);
});

test('read leniently: unknown columns and bad widths dropped, widths clamped', () => {
  const raw = JSON.stringify({
    shown: ['id', 'gone', 7, 'canonical'],
    known: ['id', 'url', 'status', 'canonical', 'gone'],
    widths: { url: 'wide', status: 1, canonical: 1e9, gone: 100, id: Infinity },
  });
  const p = readPrefs(raw, COLS);
  assert.deepEqual(p.shown, ['id', 'url', 'canonical']);
  assert.deepEqual(p.widths, { status: MIN_COLUMN_WIDTH, canonical: MAX_COLUMN_WIDTH });
  assert.deepEqual(p.known, ['id', 'url', 'status', 'canonical']);
});

test('a column added after the analyst chose takes its own default; one they hid stays hidden', () => {
  // Saved when the app had id, url and status only, with status hidden.
  const saved = JSON.stringify({ shown: ['id', 'url'], known: ['id', 'url', 'status'], widths: {} });
  const later: ColumnMeta[] = [...COLS, { key: 'inlinks', width: 70, shown: true }];
  assert.deepEqual(keys(visibleColumns(readPrefs(saved, later), later)), ['id', 'url', 'inlinks']);
});
