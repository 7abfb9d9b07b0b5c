import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SitemapNode } from '../../shared/model.js';
import { emptyTree, groupProblems, mergeNodes, problemCount, setChildren, setExpanded, visibleRows } from '../../renderer/src/logic/tree.js';

function node(id: string, parentId: string | null, extra: Partial<SitemapNode> = {}): SitemapNode {
  return {
    id,
    url: id,
    parentId,
    type: 'urlset',
    state: 'done',
    bytes: 0,
    uncompressedBytes: 0,
    gzip: false,
    urlCount: 0,
    childCount: 0,
    problems: [],
    ...extra,
  };
}

const robots = node('r', null, { type: 'robots', childCount: 1 });
const index = node('i', 'r', { type: 'sitemapindex', childCount: 2 });

test('rows are the expanded part of the tree, depth first', () => {
  let t = setChildren(emptyTree(), null, [robots]);
  assert.deepEqual(
    visibleRows(t).map((r) => r.node.id),
    ['r'],
  );
  assert.equal(visibleRows(t)[0]!.expandable, true);
  t = setExpanded(t, 'r', true);
  assert.equal(visibleRows(t)[0]!.loading, true, 'expanded before its children arrived');
  t = setChildren(t, 'r', [index]);
  t = setExpanded(t, 'i', true);
  t = setChildren(t, 'i', [node('a', 'i', { urlCount: 5 }), node('b', 'i')]);
  assert.deepEqual(
    visibleRows(t).map((r) => [r.node.id, r.depth]),
    [
      ['r', 0],
      ['i', 1],
      ['a', 2],
      ['b', 2],
    ],
  );
  t = setExpanded(t, 'r', false);
  assert.deepEqual(
    visibleRows(t).map((r) => r.node.id),
    ['r'],
  );
});

test('live nodes update known ones and join loaded lists only', () => {
  let t = setChildren(emptyTree(), null, [robots]);
  t = setChildren(t, 'r', [index]);
  t = mergeNodes(t, [node('i', 'r', { type: 'sitemapindex', childCount: 3, state: 'done', httpStatus: 200 }), node('c', 'i')]);
  assert.equal(t.nodes.i!.childCount, 3);
  assert.equal(t.nodes.i!.httpStatus, 200);
  assert.equal(t.children.i, undefined, "the index's children were never loaded: no partial list");
  t = setChildren(t, 'i', [node('a', 'i')]);
  assert.deepEqual(t.children.i, ['a'], 'the fetched list is the truth');
  t = mergeNodes(t, [node('d', 'i'), node('a', 'i', { urlCount: 9 })]);
  assert.deepEqual(t.children.i, ['a', 'd']);
  assert.equal(t.nodes.a!.urlCount, 9);
  t = mergeNodes(t, [node('root2', null)]);
  assert.deepEqual(t.children[''], ['r', 'root2'], 'a new root appears live');
});

test('children that arrived live before the fetch answered are kept', () => {
  let t = setChildren(emptyTree(), 'x', [node('a', 'x')]);
  t = mergeNodes(t, [node('b', 'x')]);
  t = setChildren(t, 'x', [node('a', 'x')]);
  assert.deepEqual(t.children.x, ['a', 'b']);
});

test('a cycle in the tree is shown once', () => {
  let t = setChildren(emptyTree(), null, [node('i', null, { type: 'sitemapindex', childCount: 1 })]);
  t = setChildren(t, 'i', [node('j', 'i', { type: 'sitemapindex', childCount: 1 })]);
  t = { ...t, children: { ...t.children, j: ['i'] } };
  t = setExpanded(setExpanded(t, 'i', true), 'j', true);
  assert.deepEqual(
    visibleRows(t).map((r) => r.node.id),
    ['i', 'j'],
  );
});

test('problems of a branch add up, a failed fetch counts as one', () => {
  let t = setChildren(emptyTree(), null, [node('i', null, { childCount: 2, problems: [{ code: 'X', message: 'x' }] })]);
  t = setChildren(t, 'i', [
    node('a', 'i', { state: 'error' }),
    node('b', 'i', {
      problems: [
        { code: 'Y', message: 'y' },
        { code: 'Z', message: 'z' },
      ],
    }),
  ]);
  assert.equal(problemCount(t, 'i'), 4);
  assert.equal(problemCount(t, 'a'), 1);
});

test('problems group by code in order of first appearance', () => {
  const g = groupProblems([
    { code: 'OUT', message: 'a', url: 'u1' },
    { code: 'LASTMOD', message: 'b' },
    { code: 'OUT', message: 'c', url: 'u2' },
  ]);
  assert.deepEqual(
    g.map((x) => [x.code, x.items.length]),
    [
      ['OUT', 2],
      ['LASTMOD', 1],
    ],
  );
  assert.deepEqual(groupProblems([]), []);
});
