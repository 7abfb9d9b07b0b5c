/**
 * SitemapTree: the latest version of every sitemap-tree node, children in the order they appeared,
 * the sitemap counts, and which nodes changed since the last progress event.
 */
import type { CrawlCounters, SitemapNode } from '../../../shared/model.js';

export class SitemapTree {
  private readonly nodes = new Map<string, SitemapNode>();
  private readonly children = new Map<string | null, string[]>();
  private readonly changed = new Set<string>();
  private readonly counts = { total: 0, done: 0, failed: 0 };

  /** Adds or replaces a node; returns true when it is new. */
  upsert(node: SitemapNode): boolean {
    const prev = this.nodes.get(node.id);
    if (prev) this.tally(prev, -1);
    else {
      const siblings = this.children.get(node.parentId);
      if (siblings) siblings.push(node.id);
      else this.children.set(node.parentId, [node.id]);
    }
    this.nodes.set(node.id, node);
    this.tally(node, 1);
    this.changed.add(node.id);
    return prev === undefined;
  }

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  get(id: string): SitemapNode | undefined {
    return this.nodes.get(id);
  }

  /** Children of a node (null: the roots), in the order they appeared. */
  childrenOf(parentId: string | null): SitemapNode[] {
    return (this.children.get(parentId) ?? []).map((id) => this.nodes.get(id)!).filter(Boolean);
  }

  all(): SitemapNode[] {
    return [...this.nodes.values()];
  }

  /** Sitemap documents (robots.txt nodes not counted): total, done, failed. */
  sitemapCounts(): CrawlCounters['sitemaps'] {
    return { ...this.counts };
  }

  /** Counts every node as changed (something shown with them, the audit's badges, changed). */
  markAllChanged(): void {
    for (const id of this.nodes.keys()) this.changed.add(id);
  }

  /** Nodes changed since the last call. */
  takeChanged(): SitemapNode[] {
    const out: SitemapNode[] = [];
    for (const id of this.changed) out.push(this.nodes.get(id)!);
    this.changed.clear();
    return out;
  }

  private tally(n: SitemapNode, d: number): void {
    if (n.type === 'robots') return;
    this.counts.total += d;
    if (n.state === 'done') this.counts.done += d;
    else if (n.state === 'error') this.counts.failed += d;
  }
}
