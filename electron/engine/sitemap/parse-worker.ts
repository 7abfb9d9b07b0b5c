/**
 * The sitemap parse worker: runs streamSitemap (inflate, decode, tokenize, read entries, check
 * them) off the main thread, so the thread that owns the frontier and the journal only takes in
 * finished items. Started by worker-stream.ts; the protocol is in worker-protocol.ts.
 */
import { parentPort } from 'node:worker_threads';
import { streamMapped } from './stream.js';
import { AHEAD, wireBatch, wireItem, type FromWorker, type ToWorker } from './worker-protocol.js';

if (!parentPort) throw new Error('parse-worker.ts runs as a worker thread only.');
const port = parentPort;

function post(m: FromWorker): void {
  port.postMessage(m);
}

class Session {
  private readonly chunks: Uint8Array[] = [];
  private ended = false;
  private failure: Error | null = null;
  closed = false;
  /** A pull is unanswered: one at a time. */
  private pulling = false;
  private inFlight = 0;
  /** Both the body (read by gunzip's pipeline on its own) and the batch loop may be waiting. */
  private waiters: (() => void)[] = [];

  constructor(readonly id: number) {}

  /** The body, chunk by chunk, asked of the main thread as the parser needs it. */
  async *body(): AsyncGenerator<Buffer, void, void> {
    for (;;) {
      if (this.closed) return;
      const c = this.chunks.shift();
      if (c !== undefined) {
        yield Buffer.from(c.buffer, c.byteOffset, c.byteLength);
        continue;
      }
      if (this.failure) throw this.failure;
      if (this.ended) return;
      if (!this.pulling) {
        this.pulling = true;
        post({ t: 'pull', id: this.id });
      }
      await this.sleep();
    }
  }

  /** Waits until fewer than AHEAD batches are unread by the consumer. */
  async credit(): Promise<void> {
    while (!this.closed && this.inFlight >= AHEAD) await this.sleep();
    this.inFlight++;
  }

  onMessage(m: ToWorker): void {
    if (m.t === 'chunk') {
      this.chunks.push(m.data);
      this.pulling = false;
    } else if (m.t === 'end') this.ended = true;
    else if (m.t === 'fail') this.failure = Object.assign(new Error(m.message), m.code ? { code: m.code } : {});
    else if (m.t === 'ack') this.inFlight--;
    else if (m.t === 'close') this.closed = true;
    this.signal();
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private signal(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

const sessions = new Map<number, Session>();

async function run(session: Session, opts: Extract<ToWorker, { t: 'open' }>['opts']): Promise<void> {
  // Each item becomes JSON as soon as it is read; the uniqueKey is worked out here too:
  // canonicalising a URL costs the frontier's thread more than taking it in.
  const gen = streamMapped(session.body(), opts, wireItem);
  try {
    let r = await gen.next();
    while (!r.done) {
      await session.credit();
      if (session.closed) {
        await gen.return(undefined as never);
        return;
      }
      const { json, ends } = wireBatch(r.value);
      port.postMessage({ t: 'items', id: session.id, json, ends } satisfies FromWorker, [ends.buffer as ArrayBuffer]);
      r = await gen.next();
    }
    if (!session.closed) post({ t: 'done', id: session.id, summary: r.value });
  } catch (err) {
    if (!session.closed) post({ t: 'crash', id: session.id, message: err instanceof Error ? err.message : String(err) });
  } finally {
    sessions.delete(session.id);
  }
}

port.on('message', (m: ToWorker) => {
  if (m.t === 'open') {
    const s = new Session(m.id);
    sessions.set(m.id, s);
    void run(s, m.opts);
    return;
  }
  sessions.get(m.id)?.onMessage(m);
});

post({ t: 'ready', id: 0 });
