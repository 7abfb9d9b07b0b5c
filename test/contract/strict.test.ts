/**
 * The contract's shapes are strict, and the dispatcher's result check (checkResults, on in every
 * contract test) parses with them: a key the contract does not declare fails like a missing one,
 * at any depth, instead of being dropped or passed through unseen.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { events, methods, TransportErrorCode, type MethodName } from '../../shared/contract.js';
import { DEFAULT_SETTINGS, emptyCounters, type CrawlSummary, type SitemapNode } from '../../shared/model.js';
import { createDispatcher, type Handlers } from '../../electron/renderer-host/dispatch.js';

type Def = { type: string; [k: string]: unknown };
const defOf = (s: unknown) => (s as { _zod: { def: Def } })._zod.def;

/** Schema kinds without inner schemas. */
const LEAVES = new Set(['string', 'number', 'boolean', 'enum', 'literal', 'null', 'unknown', 'never']);

/** Paths of the object schemas inside `schema` that accept unknown keys. */
function looseObjects(schema: unknown, path: string, out: string[] = []): string[] {
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      if (defOf(def.catchall ?? { _zod: { def: { type: 'none' } } }).type !== 'never') out.push(path || '(root)');
      for (const [k, v] of Object.entries(def.shape as Record<string, unknown>)) looseObjects(v, `${path}.${k}`, out);
      break;
    }
    case 'array':
      looseObjects(def.element, `${path}[]`, out);
      break;
    case 'optional':
    case 'nullable':
      looseObjects(def.innerType, path, out);
      break;
    case 'record':
      looseObjects(def.valueType, `${path}{}`, out);
      break;
    default:
      // A kind this walk does not know might hold objects it would miss: teach it, do not skip it.
      assert.ok(LEAVES.has(def.type), `${path}: a ${def.type} schema (extend looseObjects)`);
  }
  return out;
}

test('every object a method answers or an event carries is strict, at every depth', () => {
  const loose: string[] = [];
  for (const [name, spec] of Object.entries(methods)) looseObjects(spec.result, name, loose);
  for (const [name, schema] of Object.entries(events)) looseObjects(schema, `event ${name}`, loose);
  assert.deepEqual(loose, []);
});

test('the walk finds a loose object where there is one', async () => {
  const { object, strictObject, array, string } = await import('zod');
  const schema = strictObject({ a: array(strictObject({ b: object({ c: string() }).optional() })) });
  assert.deepEqual(looseObjects(schema, 'x'), ['x.a[].b']);
});

function summary(): CrawlSummary {
  return {
    id: 'c1',
    name: 'Shop',
    startUrl: 'https://shop.test/',
    settings: { ...DEFAULT_SETTINGS, startUrl: 'https://shop.test/' },
    status: 'created',
    counters: emptyCounters(),
    createdAt: 1,
    updatedAt: 1,
    rate: 0,
  };
}

function node(): SitemapNode {
  return {
    id: 'https://shop.test/sitemap.xml',
    url: 'https://shop.test/sitemap.xml',
    parentId: null,
    type: 'urlset',
    state: 'done',
    bytes: 10,
    uncompressedBytes: 10,
    gzip: false,
    urlCount: 1,
    childCount: 0,
    problems: [{ code: 'X', message: 'x' }],
  };
}

/** A dispatcher whose `method` answers `value`, results checked as in the contract tests. */
function answering(method: MethodName, value: unknown) {
  const handlers = { [method]: () => value } as unknown as Handlers;
  return createDispatcher(handlers, { checkResults: true, onInternalError: () => {} });
}

const ARGS: Partial<Record<MethodName, unknown>> = {
  getCrawl: { id: 'c1' },
  getSitemapChildren: { id: 'c1', parentId: null },
};

async function check(method: MethodName, value: unknown) {
  return answering(method, value)(method, ARGS[method]);
}

test('checkResults answers the parsed value of a result that keeps the contract', async () => {
  const value = summary();
  const res = await check('getCrawl', value);
  assert.ok(res.ok, JSON.stringify(res));
  assert.deepEqual(res.value, value);
  assert.notEqual(res.value, value, "what the schema parsed, not the handler's own object");
  const nodes = await check('getSitemapChildren', [node()]);
  assert.ok(nodes.ok, JSON.stringify(nodes));
});

test('checkResults refuses an unknown key, at the top or deep inside, as INTERNAL', async () => {
  const cases: [MethodName, unknown, RegExp][] = [
    ['getCrawl', { ...summary(), secret: 'x' }, /secret/],
    ['getCrawl', { ...summary(), counters: { ...emptyCounters(), sitemaps: { total: 0, done: 0, failed: 0, extra: 1 } } }, /counters\.sitemaps.*extra/],
    ['getCrawl', { ...summary(), settings: { ...summary().settings, password: 'x' } }, /settings.*password/],
    ['getSitemapChildren', [{ ...node(), problems: [{ code: 'X', message: 'x', line: 3 }] }], /0\.problems\.0.*line/],
  ];
  for (const [method, value, why] of cases) {
    const res = await check(method, value);
    assert.equal(res.ok, false, `${method}: ${JSON.stringify(value).slice(0, 200)} should break the contract`);
    if (!res.ok) {
      assert.equal(res.error.code, TransportErrorCode.INTERNAL);
      assert.match(res.error.message, /broke the contract/);
      assert.match(res.error.message, why);
    }
  }
});

test('checkResults refuses a missing field as INTERNAL', async () => {
  const { rate: _rate, ...withoutRate } = summary();
  const { gzip: _gzip, ...withoutGzip } = node();
  for (const [method, value, why] of [
    ['getCrawl', withoutRate, /rate/],
    ['getSitemapChildren', [withoutGzip], /gzip/],
  ] as [MethodName, unknown, RegExp][]) {
    const res = await check(method, value);
    assert.equal(res.ok, false, method);
    if (!res.ok) {
      assert.equal(res.error.code, TransportErrorCode.INTERNAL);
      assert.match(res.error.message, why);
    }
  }
});
