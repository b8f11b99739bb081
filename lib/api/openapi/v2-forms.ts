/**
 * The served forms of the `/openapi/v2` document besides its JSON bytes: gnostic's protobuf and
 * the gzip of each, as kube-openapi's handler serves them (its GzipHandler compresses both forms
 * for a client that accepts gzip; the ETag is that of the uncompressed bytes).
 * - The protobuf form is encoded in a worker thread (./v2-protobuf-thread.ts), never on the event
 *   loop. Once a client has asked for it, it is encoded again in the background after every
 *   change of the served resources or of the extension servers' documents (`changed()`), so the
 *   next request finds it ready; a request that comes first waits for that encode (one per JSON
 *   document, shared by all waiting requests) without blocking the server. A server nobody asks
 *   protobuf of never encodes it.
 * - The gzip of a form is made on libuv's thread pool and kept with the form: the protobuf form's
 *   as soon as it is encoded, the JSON form's on first use.
 * `encodes` counts the protobuf encodes by what started them (a debug hook: tests and
 * docs/performance.md).
 */
import path from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { gzip } from 'node:zlib';
import { logger } from '../../logger';
import type { ServedDocument } from './documents';

const gzipAsync = promisify(gzip);

/** The protobuf form of a JSON v2 document (bytes and hash), made in a worker thread of its own. */
function encodeInWorker(json: Buffer): Promise<ServedDocument> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(path.join(__dirname, 'v2-protobuf-thread.js'), { workerData: json });
    worker.unref();
    worker.once('message', ({ body, hash }: { body: Uint8Array; hash: string }) => {
      resolve({ body: Buffer.from(body.buffer, body.byteOffset, body.byteLength), hash });
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the OpenAPI v2 protobuf encoder exited with code ${code}`)));
  });
}

export class V2Forms {
  /** Protobuf encodes started by a change (ahead of any request) and by a request that found none. */
  readonly encodes = { background: 0, onRequest: 0 };
  private source?: () => Promise<ServedDocument>;
  private wanted = false;
  private scheduled = false;
  private protobufOf?: { json: ServedDocument; doc: Promise<ServedDocument> };
  private running?: Promise<unknown>;
  private rerun = false;
  private readonly gzipped = new WeakMap<ServedDocument, Promise<Buffer>>();

  /** The JSON document as served now (OpenApiDocuments.v2). */
  serve(source: () => Promise<ServedDocument>): void {
    this.source = source;
  }

  /** The served document may have changed: the protobuf form is encoded ahead, if it is used. */
  changed(): void {
    if (!this.wanted || this.scheduled) return;
    this.scheduled = true;
    // Changes of one turn (a CRD's versions, the registry's listeners) make one document.
    setImmediate(() => {
      this.scheduled = false;
      this.refresh();
    });
  }

  /** The protobuf form of the current JSON document. */
  async protobuf(): Promise<ServedDocument> {
    this.wanted = true;
    const json = await this.current();
    return this.protobufOf?.json === json ? this.protobufOf.doc : this.encode(json, 'onRequest');
  }

  /** Resolves when no encode is scheduled or running (tests). */
  async settled(): Promise<void> {
    while (this.scheduled || this.running) await (this.running ?? new Promise((r) => setImmediate(r)));
  }

  /** The gzip of `doc`'s bytes, made once. */
  gzip(doc: ServedDocument): Promise<Buffer> {
    let zipped = this.gzipped.get(doc);
    if (!zipped) this.gzipped.set(doc, (zipped = gzipAsync(doc.body)));
    return zipped;
  }

  private current(): Promise<ServedDocument> {
    if (!this.source) return Promise.reject(new Error('V2Forms: no document served'));
    return this.source();
  }

  /** One background encode at a time; a change during one is encoded after it. */
  private refresh(): void {
    if (this.running) {
      this.rerun = true;
      return;
    }
    // Counts as running while the JSON document is built, so that changes meanwhile wait for it.
    const building = this.current().then((json) => {
      if (this.running === building) this.running = undefined;
      if (this.protobufOf?.json !== json) void this.encode(json, 'background').catch(() => undefined);
      else this.rerunIfAsked();
    }, (err: Error) => {
      if (this.running === building) this.running = undefined;
      // The request that asks next meets the same error, as a Status.
      logger.error('OpenAPI v2: the document could not be built', { err: err.message });
      this.rerunIfAsked();
    });
    this.running = building;
  }

  private rerunIfAsked(): void {
    if (!this.rerun || this.running) return;
    this.rerun = false;
    this.refresh();
  }

  private encode(json: ServedDocument, trigger: keyof V2Forms['encodes']): Promise<ServedDocument> {
    this.encodes[trigger]++;
    // Its gzip is made with it: kubectl (Go's transport) always takes gzip.
    const doc = encodeInWorker(json.body).then((pb) => {
      this.gzip(pb).catch(() => undefined);
      return pb;
    });
    const entry = { json, doc };
    this.protobufOf = entry;
    const running = doc.then(() => undefined, () => {
      // A failed encode is tried again by the next request or change.
      if (this.protobufOf === entry) this.protobufOf = undefined;
    }).finally(() => {
      if (this.running !== running) return;
      this.running = undefined;
      this.rerunIfAsked();
    });
    this.running = running;
    return doc;
  }
}
