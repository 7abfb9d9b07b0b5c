/**
 * The one dispatch function behind both transports (Electron IPC and the browser-mode WebSocket):
 * it checks the method name, validates the arguments with the contract's schema, calls the service
 * and answers the Result envelope. Plain Node: no Electron, no sockets.
 */
import type { z } from 'zod';
import {
  TransportErrorCode,
  describeIssues,
  fail,
  isMethodName,
  methods,
  type EventName,
  type EventPayload,
  type ExportResult,
  type MethodName,
  type MethodResult,
  type Result,
} from '../../shared/contract.js';
import type { CompareFilter, UrlQuery } from '../../shared/model.js';
import type { ImportResult } from '../../shared/contract.js';
import type { CrawlService, LinksExport } from '../service/types.js';
import { checkLinksExport } from '../service/data/links-csv.js';

/** Arguments as the handler sees them: parsed and validated. */
export type ParsedArgs<M extends MethodName> = z.output<(typeof methods)[M]['args']>;

/** One implementation per contract method. */
export type Handlers = {
  [M in MethodName]: (args: ParsedArgs<M>) => MethodResult<M> | Promise<MethodResult<M>>;
};

/** How a transport writes a CSV: Electron asks for a path and streams to it, browser mode offers a download. */
export type CsvExporter = (id: string, filter: Omit<UrlQuery, 'offset' | 'limit'> | undefined) => Promise<ExportResult>;
/** The same for a links export. */
export type LinksExporter = (id: string, opts: LinksExport) => Promise<ExportResult>;

/** The same for a comparison's CSV. */
export type CompareExporter = (oldId: string, newId: string, filter: CompareFilter | undefined) => Promise<ExportResult>;
/** Saving a crawl file: Electron asks for a path, browser mode offers a download. */
export type CrawlFileExporter = (id: string) => Promise<ExportResult>;
/** Opening a crawl file: Electron shows an open dialog, browser mode hands out an upload URL. */
export type CrawlFileImporter = () => Promise<ImportResult>;

/** How the transport carries each export: the URL table's, the links', a comparison's, crawl files. */
export interface Exporters {
  urls: CsvExporter;
  links: LinksExporter;
  compare: CompareExporter;
  crawlFile: CrawlFileExporter;
  importCrawl: CrawlFileImporter;
}

/** The contract's methods, carried out by a CrawlService. */
export function createHandlers(service: CrawlService, exporters: Exporters): Handlers {
  return {
    listCrawls: () => service.list(),
    getCrawl: ({ id }) => service.get(id),
    createCrawl: ({ name, settings, list }) => service.create({ name, settings, ...(list === undefined ? {} : { list }) }),
    renameCrawl: ({ id, name }) => service.rename(id, name),
    startCrawl: ({ id }) => service.start(id),
    pauseCrawl: ({ id }) => service.pause(id),
    resumeCrawl: ({ id }) => service.resume(id),
    stopCrawl: ({ id }) => service.stop(id),
    deleteCrawl: async ({ id }) => {
      await service.delete(id);
      return null;
    },
    queryUrls: ({ id, query }) => service.queryUrls(id, query),
    getUrl: ({ id, urlId }) => service.getUrl(id, urlId),
    getSitemapChildren: ({ id, parentId }) => service.sitemapTree(id, parentId),
    getLog: ({ id, offset, limit }) => service.log(id, offset, limit),
    getFindings: ({ id }) => service.getFindings(id),
    getFindingUrls: ({ id, code, offset, limit }) => service.findingUrls(id, code, offset, limit),
    exportCsv: ({ id, filter }) => {
      service.get(id); // unknown crawl: fail before any dialog opens or file is made
      return exporters.urls(id, filter);
    },
    getLinks: ({ id, urlId, direction, offset, limit }) => service.getLinks(id, urlId, direction, offset, limit),
    exportLinks: ({ id, urlId, direction, finding }) => {
      // An unknown crawl, URL or finding, or options that do not go together, fail before any dialog opens or file is made.
      if (urlId !== undefined) service.getUrl(id, urlId);
      else service.get(id);
      const opts: LinksExport = {};
      if (urlId !== undefined) opts.urlId = urlId;
      if (direction !== undefined) opts.direction = direction;
      if (finding !== undefined) opts.finding = finding;
      checkLinksExport(opts);
      return exporters.links(id, opts);
    },
    getPageStats: ({ id }) => service.getPageStats(id),
    recrawl: ({ id, changedOnly }) => service.recrawl(id, changedOnly === undefined ? {} : { changedOnly }),
    compareCrawls: ({ oldId, newId }) => service.compare(oldId, newId),
    getCompareRows: ({ oldId, newId, query }) => service.compareRows(oldId, newId, query),
    exportCompare: ({ oldId, newId, filter }) => {
      service.get(oldId); // unknown crawls: fail before any dialog opens or file is made
      service.get(newId);
      return exporters.compare(oldId, newId, filter);
    },
    setSchedule: ({ id, every, changedOnly }) => service.setSchedule(id, every, changedOnly),
    exportCrawlFile: ({ id }) => {
      service.get(id);
      return exporters.crawlFile(id);
    },
    importCrawl: () => exporters.importCrawl(),
    getDefaults: () => service.getDefaults(),
    setDefaults: ({ patch }) => service.setDefaults(patch),
  };
}

export interface DispatchOptions {
  /** Validate results against the contract too (tests and development; costs a parse per answer). */
  checkResults?: boolean;
  /** Where unexpected errors (no code) are reported; they also reach the caller as INTERNAL. */
  onInternalError?: (method: string, error: unknown) => void;
}

/** Calls one method by name with untrusted arguments; always resolves with an envelope. */
export type Dispatch = (method: unknown, args: unknown) => Promise<Result<unknown>>;

/** Builds the dispatch function shared by every transport. */
export function createDispatcher(handlers: Handlers, options: DispatchOptions = {}): Dispatch {
  return async (method, args) => {
    if (!isMethodName(method)) {
      return fail(TransportErrorCode.UNKNOWN_METHOD, `There is no method "${String(method).slice(0, 100)}".`);
    }
    const spec = methods[method];
    const parsed = spec.args.safeParse(args);
    if (!parsed.success) {
      return fail(TransportErrorCode.INVALID_ARGS, `Invalid arguments for ${method}: ${describeIssues(parsed.error)}`);
    }
    let value: unknown;
    try {
      const handler = handlers[method] as (a: unknown) => unknown;
      value = await handler(parsed.data);
    } catch (error) {
      return errorEnvelope(method, error, options);
    }
    if (options.checkResults) {
      // Strict schemas: an unknown key fails like a missing one. The parsed value is what goes out,
      // so a caller sees exactly what the contract declares.
      const checked = spec.result.safeParse(value);
      if (!checked.success) {
        return fail(TransportErrorCode.INTERNAL, `The result of ${method} broke the contract: ${describeIssues(checked.error)}`);
      }
      value = checked.data;
    }
    return { ok: true, value };
  };
}

/** Turns anything thrown into the failure envelope: coded errors keep their code, the rest is INTERNAL. */
export function errorEnvelope(method: string, error: unknown, options: DispatchOptions = {}): Result<never> {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code)) return fail(code, message);
  (options.onInternalError ?? defaultInternalError)(method, error);
  return fail(TransportErrorCode.INTERNAL, `Spinneret hit an unexpected error in ${method}: ${message}`);
}

function defaultInternalError(method: string, error: unknown): void {
  console.error(`[spinneret] ${method} failed:`, error);
}

/** Forwards the service's events under the contract's event names; returns the unsubscribe function. */
export function forwardServiceEvents(service: CrawlService, emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void): () => void {
  const offs = [
    service.on('progress', (e) => emit('progress', e)),
    service.on('finished', (s) => emit('crawlFinished', s)),
    service.on('failed', (s) => emit('crawlFailed', s)),
    service.on('warning', (w) => emit('warning', w)),
    service.on('recrawlFinished', (e) => emit('recrawlFinished', e)),
  ];
  return () => {
    for (const off of offs) off();
  };
}
