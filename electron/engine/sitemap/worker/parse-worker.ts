/**
 * The sitemap parse worker: runs streamSitemap (inflate, decode, tokenize, read entries, check
 * them) off the main thread, so the thread that owns the frontier and the journal only takes in
 * finished items. Started by worker-stream.ts; the protocol is in worker-protocol.ts.
 */
import { parentPort } from 'node:worker_threads';
import { streamMapped } from '../read/stream.js';
import { AHEAD, WireWriter, type FromWorker, type ToWorker } from './worker-protocol.js';

if (!parentPort) throw new Error('parse-worker.ts runs as a worker thread only.');
const port = parentPort;

function post(m: FromWorker): void {
  port.postMessage(m);
}

class Session {
  private readonly chunks: Uint8Array[] = [];
  /** Memory of the chunks received, until given back (spent); weak: a plain body's chunks are never spent. */
  private readonly received = new WeakSet<ArrayBuffer>();
  private ended = false;
  private failure: Error | null = null;
  closed = false;
  /** A pull is unanswered: one at a time. */
  private pulling = false;
  private inFlight = 0;
  /** Both the body (read by gunzip's pipeline on its own) and the batch loop may be waiting. */
  private waiters: (() => void)[] = [];

  /** Writes the session's items as the text of its batches. */
  readonly writer = new WireWriter();

  constructor(readonly id: number) {}

  /**
   * The body, chunk by chunk, asked of the main thread as the parser needs it, up to two chunks ahead:
   * the next is asked for as one is handed on, so it arrives while this one is read instead of after
   * the main thread's next turn of its event loop.
   */
  async *body(): AsyncGenerator<Buffer, void, void> {
    for (;;) {
      if (this.closed) return;
      const c = this.chunks.shift();
      if (c !== undefined) {
        if (this.chunks.length < 2) this.pull();
        yield Buffer.from(c.buffer, c.byteOffset, c.byteLength);
        continue;
      }
      if (this.failure) throw this.failure;
      if (this.ended) return;
      this.pull();
      await this.sleep();
    }
  }

  /** Asks the main thread for the next chunk, unless one is asked for or the body is over. */
  private pull(): void {
    if (this.pulling || this.ended || this.failure || this.closed) return;
    this.pulling = true;
    post({ t: 'pull', id: this.id });
  }

  /** Gives a body chunk's memory back to the main thread once it is read (a chunk it sent whole). */
  spent(chunk: Buffer): void {
    const buffer = chunk.buffer as ArrayBuffer;
    if (this.closed || !this.received.delete(buffer)) return;
    port.postMessage({ t: 'spent', id: this.id, buffer } satisfies FromWorker, [buffer as ArrayBuffer]);
  }

  /** Waits until fewer than AHEAD batches are unread by the consumer. */
  async credit(): Promise<void> {
    while (!this.closed && this.inFlight >= AHEAD) await this.sleep();
    this.inFlight++;
  }

  onMessage(m: ToWorker): void {
    if (m.t === 'chunk') {
      this.chunks.push(m.data);
      this.received.add(m.data.buffer as ArrayBuffer);
      this.pulling = false;
    } else if (m.t === 'end') this.ended = true;
    else if (m.t === 'fail') this.failure = Object.assign(new Error(m.message), m.code ? { code: m.code } : {});
    else if (m.t === 'ack') {
      this.inFlight--;
      if (m.buffer) this.writer.recycle(m.buffer);
    } else if (m.t === 'close') this.closed = true;
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
  // Each item is written as JSON as soon as it is read; the uniqueKey is worked out here too:
  // canonicalising a URL costs the frontier's thread more than taking it in. The batches streamMapped
  // yields only count the items; their text is cut from the writer in the same order.
  const writer = session.writer;
  const gen = streamMapped(
    session.body(),
    opts,
    (item) => writer.item(item),
    (chunk) => session.spent(chunk),
  );
  try {
    let r = await gen.next();
    while (!r.done) {
      await session.credit();
      if (session.closed) {
        await gen.return(undefined as never);
        return;
      }
      const { bytes, ends, ascii } = writer.take(r.value.length);
      port.postMessage({ t: 'items', id: session.id, bytes, ascii, ends } satisfies FromWorker, [bytes.buffer as ArrayBuffer, ends.buffer as ArrayBuffer]);
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
