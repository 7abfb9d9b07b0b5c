/** The sitemap tree as the window holds it: nodes loaded lazily, merged live from progress. */
import type { Problem, SitemapNode } from '../../../shared/model.js';

/** Children lists are keyed by parent id; the roots live under ROOT. */
export const ROOT = '';

export interface TreeState {
  nodes: Record<string, SitemapNode>;
  /** Child ids per parent, in the order first seen; present only once that parent was loaded. */
  children: Record<string, string[]>;
  expanded: Record<string, boolean>;
}

export function emptyTree(): TreeState {
  return { nodes: {}, children: {}, expanded: {} };
}

const keyOf = (parentId: string | null) => parentId ?? ROOT;

/** Stores a parent's children as fetched; nodes that arrived live meanwhile are kept. */
export function setChildren(state: TreeState, parentId: string | null, list: readonly SitemapNode[]): TreeState {
  const key = keyOf(parentId);
  const nodes = { ...state.nodes };
  const ids: string[] = [];
  for (const n of list) {
    nodes[n.id] = n;
    ids.push(n.id);
  }
  for (const id of state.children[key] ?? []) if (!ids.includes(id)) ids.push(id);
  return { ...state, nodes, children: { ...state.children, [key]: ids } };
}

/** Merges nodes from a progress event: updates known ones, adds new ones under loaded parents. */
export function mergeNodes(state: TreeState, incoming: readonly SitemapNode[]): TreeState {
  if (incoming.length === 0) return state;
  const nodes = { ...state.nodes };
  const children = { ...state.children };
  const copied = new Set<string>();
  for (const n of incoming) {
    const isNew = !nodes[n.id];
    nodes[n.id] = n;
    const key = keyOf(n.parentId);
    const list = children[key];
    if (isNew && list && !list.includes(n.id)) {
      if (!copied.has(key)) {
        children[key] = [...list];
        copied.add(key);
      }
      children[key]!.push(n.id);
    }
  }
  return { ...state, nodes, children };
}

export function setExpanded(state: TreeState, id: string, open: boolean): TreeState {
  return { ...state, expanded: { ...state.expanded, [id]: open } };
}

/** True when a node has (or may have) children to show. */
export function hasChildren(state: TreeState, node: SitemapNode): boolean {
  return node.childCount > 0 || (state.children[node.id]?.length ?? 0) > 0;
}

export interface TreeRow {
  node: SitemapNode;
  depth: number;
  expandable: boolean;
  expanded: boolean;
  /** Expanded but its children have not arrived yet. */
  loading: boolean;
}

/** The rows on screen: a depth-first walk of the expanded part of the tree. */
export function visibleRows(state: TreeState): TreeRow[] {
  const out: TreeRow[] = [];
  const seen = new Set<string>();
  const walk = (key: string, depth: number) => {
    for (const id of state.children[key] ?? []) {
      const node = state.nodes[id];
      if (!node || seen.has(id)) continue; // a cycle is shown once
      seen.add(id);
      const expandable = hasChildren(state, node);
      const expanded = expandable && !!state.expanded[id];
      out.push({ node, depth, expandable, expanded, loading: expanded && !state.children[id] });
      if (expanded) walk(id, depth + 1);
    }
  };
  walk(ROOT, 0);
  return out;
}

/** Problems in a node and its loaded descendants, for the badge of a collapsed branch. */
export function problemCount(state: TreeState, id: string): number {
  let count = 0;
  const seen = new Set<string>();
  const visit = (nid: string) => {
    if (seen.has(nid)) return;
    seen.add(nid);
    const n = state.nodes[nid];
    if (!n) return;
    count += n.problems.length + (n.state === 'error' && n.problems.length === 0 ? 1 : 0);
    for (const c of state.children[nid] ?? []) visit(c);
  };
  visit(id);
  return count;
}

/** A node's problems grouped by code, in order of first appearance: one line per kind of problem. */
export function groupProblems(problems: readonly Problem[]): { code: string; items: Problem[] }[] {
  const groups = new Map<string, Problem[]>();
  for (const p of problems) {
    const list = groups.get(p.code);
    if (list) list.push(p);
    else groups.set(p.code, [p]);
  }
  return [...groups].map(([code, items]) => ({ code, items }));
}
