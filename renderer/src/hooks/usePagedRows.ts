/**
 * Rows of a remote list pulled a page at a time for a virtualised table. Pages near the visible
 * range are fetched; a new `resetKey` (filter, sort, crawl) drops the cache; a new `version`
 * (live progress) refreshes what is on screen, at most about once a second.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { PageCache } from '../logic/page-cache.js';
import { toApiError } from '../api/types.js';

export interface PagedRows<T> {
  /** Rows in the list; null until the first page answered. */
  total: number | null;
  /** The row at an index, or undefined while its page loads. */
  row(index: number): T | undefined;
  /** Tells the hook which rows are on screen (inclusive). */
  setRange(start: number, end: number): void;
  error: string | null;
  retry(): void;
  /** True while the first page of a new list is on its way. */
  loading: boolean;
}

const REFRESH_MS = 1000;

export function usePagedRows<T>(opts: {
  resetKey: string;
  version: number;
  pageSize?: number;
  fetchPage: (offset: number, limit: number) => Promise<{ total: number; rows: T[] }>;
}): PagedRows<T> {
  const pageSize = opts.pageSize ?? 100;
  const cacheRef = useRef<PageCache<T>>(new PageCache<T>(pageSize));
  const keyRef = useRef(opts.resetKey);
  const rangeRef = useRef<[number, number]>([0, pageSize - 1]);
  const totalRef = useRef<number | null>(null);
  const fetchRef = useRef(opts.fetchPage);
  fetchRef.current = opts.fetchPage;
  const [total, setTotal] = useState<number | null>(null);
  const [, setTick] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const lastRefresh = useRef(0);
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const load = useCallback(() => {
    const cache = cacheRef.current;
    const key = keyRef.current;
    const [start, end] = rangeRef.current;
    // Before the first answer the total is unknown: ask for the first visible page.
    const known = totalRef.current ?? end + 1;
    for (const p of cache.pagesToFetch(start, end, Math.max(known, 1))) {
      const gen = cache.begin(p);
      fetchRef.current(p * pageSize, pageSize).then(
        (res) => {
          if (keyRef.current !== key) return;
          cache.put(p, res.rows, gen);
          totalRef.current = res.total;
          setTotal(res.total);
          setError(null);
          setTick((t) => t + 1);
        },
        (err) => {
          if (keyRef.current !== key) return;
          cache.fail(p, gen);
          setError(toApiError(err).message);
        },
      );
    }
  }, [pageSize]);

  // A new list: forget everything and fetch from the top.
  useEffect(() => {
    keyRef.current = opts.resetKey;
    cacheRef.current = new PageCache<T>(pageSize);
    totalRef.current = null;
    setTotal(null);
    setError(null);
    load();
  }, [opts.resetKey, pageSize, load]);

  // Live data: mark the cache stale and refetch the visible pages, throttled.
  useEffect(() => {
    if (opts.version === 0) return;
    const run = () => {
      refreshTimer.current = null;
      lastRefresh.current = Date.now();
      cacheRef.current.invalidate();
      load();
    };
    const wait = lastRefresh.current + REFRESH_MS - Date.now();
    if (wait <= 0) run();
    else if (!refreshTimer.current) refreshTimer.current = setTimeout(run, wait);
  }, [opts.version, load]);
  useEffect(
    () => () => {
      if (refreshTimer.current) clearTimeout(refreshTimer.current);
    },
    [],
  );

  const setRange = useCallback(
    (start: number, end: number) => {
      const [s, e] = rangeRef.current;
      if (s === start && e === end) return;
      rangeRef.current = [start, end];
      load();
    },
    [load],
  );

  const retry = useCallback(() => {
    setError(null);
    load();
  }, [load]);

  return {
    total,
    row: (i) => cacheRef.current.get(i),
    setRange,
    error,
    retry,
    loading: total === null && !error,
  };
}
