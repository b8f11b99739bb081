/**
 * Steady load on a server while a fault is injected: 4 writers and 2 watchers over HTTPS
 * (the admin kubeconfig of a server process), recording every acknowledged write and every
 * watch event, and the checks that say whether the fault cost anything:
 * - no acknowledged write lost: every acked create is in the final list with its acked
 *   resourceVersion (creates are never modified later), every writer's counter ConfigMap holds
 *   its last acked value or a later one;
 * - watches: each watcher's resourceVersions strictly increase (no duplicate, no reordering), and
 *   after its last (re)list it saw every acked write (a 410 Gone ends in a relist, counted);
 * - every failed request is a 503 or 504 `Status` with Retry-After; the slowest error is reported;
 * - recovery: the first acked write after a given moment (when etcd has a leader again).
 */
import https from 'node:https';
import { readKubeconfig } from './process-client';

export interface Target {
  url: string;
  agent: https.Agent;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  ms: number;
}

/** An HTTPS client with the kubeconfig's server, CA and admin client certificate. */
export function targetFromKubeconfig(kubeconfigPath: string): Target {
  const { url, ca, cert, key } = readKubeconfig(kubeconfigPath);
  return { url, agent: new https.Agent({ ca, cert, key, keepAlive: true, maxSockets: 32 }) };
}

/** One request; network failures resolve as status 0 with the error message as body. */
export function request(t: Target, method: string, path: string, body?: unknown, timeoutMs = 30_000): Promise<HttpResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = https.request(new URL(path, t.url), {
      method,
      agent: t.agent,
      timeout: timeoutMs,
      headers: { accept: 'application/json', ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: any = text;
        try { parsed = text ? JSON.parse(text) : undefined; } catch { /* kept as text */ }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, ms: Date.now() - started });
      });
      res.on('error', (err) => resolve({ status: 0, headers: {}, body: err.message, ms: Date.now() - started }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err) => resolve({ status: 0, headers: {}, body: err.message, ms: Date.now() - started }));
    req.end(payload);
  });
}

export interface Ack {
  writer: number;
  name: string;
  rv: number;
  /** The counter value written (updates) or the sequence number (creates). */
  value: number;
  kind: 'create' | 'update';
  at: number;
}

export interface ErrorRecord {
  status: number;
  /** Which request: 'create', 'update', 'list' or 'watch'. */
  what: string;
  message: string;
  ms: number;
  at: number;
  /** Why it breaks the rules, when it does (not a 503/504 Status with Retry-After). */
  violation?: string;
}

export interface FaultFigures {
  writesAcked: number;
  writesLost: number;
  dupEvents: number;
  missedEvents: number;
  relists: number;
  errorCodes: Record<string, number>;
  maxErrorLatencyMs: number;
  /** The slowest error: which request, its status and message. */
  slowestError?: { what: string; status: number; ms: number; message: string };
  recoverMs: number | null;
  /** Failures that break the rules, with a reason each (first 10). */
  violations: string[];
  /** Lost writes and missed events, for failure messages (first 10). */
  details: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rvOf = (o: any): number => Number(o?.metadata?.resourceVersion ?? 0);

/** Checks one failed answer against the rules (503/504, Status, Retry-After). */
function judge(res: HttpResult): string | undefined {
  if (res.status !== 503 && res.status !== 504) return `HTTP ${res.status || 'network error'}: ${typeof res.body === 'string' ? res.body : res.body?.message}`;
  if (res.body?.kind !== 'Status') return `HTTP ${res.status} without a Status body`;
  if (!res.headers['retry-after']) return `HTTP ${res.status} without Retry-After (${res.body?.message})`;
  return undefined;
}

class Watcher {
  /** resourceVersions of object events, in arrival order. */
  readonly rvs: number[] = [];
  readonly seen = new Set<string>();
  dupEvents = 0;
  outOfOrder = 0;
  relists = 0;
  /** The rv of the last (re)list; events after it must be complete. */
  listedRv = 0;
  lastRv = 0;
  private stopped = false;
  private req?: ReturnType<typeof https.request>;
  readonly done: Promise<void>;
  readonly violations: string[] = [];

  constructor(private readonly t: Target, private readonly ns: string, private readonly onError: (r: HttpResult, what: string) => void) {
    this.done = this.run();
  }

  private async list(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const res = await request(this.t, 'GET', `/api/v1/namespaces/${this.ns}/configmaps`);
      if (res.status === 200) {
        this.listedRv = rvOf(res.body);
        this.lastRv = Math.max(this.lastRv, this.listedRv);
        return;
      }
      this.onError(res, 'list');
      await sleep(100);
    }
  }

  private async run(): Promise<void> {
    await this.list();
    while (!this.stopped) {
      const outcome = await this.watchOnce();
      if (outcome === 'gone') {
        this.relists++;
        await this.list();
      } else if (outcome === 'error') {
        await sleep(100);
      }
    }
  }

  /** One watch request from lastRv; resolves when it ends. */
  private watchOnce(): Promise<'ended' | 'gone' | 'error'> {
    const started = Date.now();
    const path = `/api/v1/namespaces/${this.ns}/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=${this.lastRv}`;
    return new Promise((resolve) => {
      let buffer = '';
      let gone = false;
      const req = https.request(new URL(path, this.t.url), { method: 'GET', agent: this.t.agent, headers: { accept: 'application/json' } }, (res) => {
        if (res.statusCode !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            let body: any;
            try { body = JSON.parse(Buffer.concat(chunks).toString()); } catch { body = undefined; }
            const r = { status: res.statusCode ?? 0, headers: res.headers, body, ms: Date.now() - started };
            if (r.status === 410) resolve('gone');
            else {
              this.onError(r, 'watch');
              resolve('error');
            }
          });
          return;
        }
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let nl: number;
          while ((nl = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, nl);
            buffer = buffer.slice(nl + 1);
            if (!line.trim()) continue;
            let ev: any;
            try { ev = JSON.parse(line); } catch {
              this.violations.push(`watch line not JSON: ${line.slice(0, 100)}`);
              continue;
            }
            if (ev.type === 'ERROR') {
              if (ev.object?.code === 410) gone = true;
              else this.violations.push(`watch ERROR event ${ev.object?.code}: ${ev.object?.message}`);
              continue;
            }
            const rv = rvOf(ev.object);
            if (ev.type === 'BOOKMARK') {
              this.lastRv = Math.max(this.lastRv, rv);
              continue;
            }
            const key = `${ev.object?.metadata?.name}@${rv}`;
            // A watch from lastRv delivers only later revisions, in order.
            if (this.seen.has(key)) this.dupEvents++;
            else if (rv <= this.lastRv) this.outOfOrder++;
            this.seen.add(key);
            this.rvs.push(rv);
            this.lastRv = Math.max(this.lastRv, rv);
          }
        });
        res.on('end', () => resolve(gone ? 'gone' : 'ended'));
        res.on('error', () => resolve(gone ? 'gone' : 'ended'));
      });
      req.on('error', () => resolve(gone ? 'gone' : 'error'));
      this.req = req;
      req.end();
    });
  }

  stop(): void {
    this.stopped = true;
    this.req?.destroy();
  }
}

export interface FaultLoad {
  readonly acks: Ack[];
  readonly errors: ErrorRecord[];
  /** Stops writers, waits for the watchers to catch up, and computes the figures. */
  finish(recoverFrom?: number): Promise<FaultFigures>;
  /**
   * Stops writers and watchers without figures: for a scenario that failed, so that its load
   * does not go on writing through the next scenarios (whose watchers would then wait for a
   * final revision reached by another namespace's writes, never by their own events).
   */
  abort(): Promise<void>;
  /** Acked writes so far. */
  acked(): number;
}

/**
 * Starts 4 writers and 2 watchers in namespace `ns` (created here). Each writer creates
 * ConfigMaps `w<i>-<seq>` and every third round also updates its counter ConfigMap `w<i>-counter`.
 */
export async function startFaultLoad(t: Target, ns: string, opts: { writers?: number; watchers?: number } = {}): Promise<FaultLoad> {
  const writers = opts.writers ?? 4;
  const acks: Ack[] = [];
  const errors: ErrorRecord[] = [];
  const violations: string[] = [];
  const onError = (res: HttpResult, what: string) => {
    const violation = judge(res);
    const message = typeof res.body === 'string' ? res.body : String(res.body?.message ?? '');
    errors.push({ status: res.status, what, message, ms: res.ms, at: Date.now(), violation });
    if (violation && violations.length < 10) violations.push(violation);
  };
  const mustOk = async (method: string, path: string, body?: unknown) => {
    const res = await request(t, method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res;
  };
  await mustOk('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (let w = 0; w < writers; w++) {
    await mustOk('POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `w${w}-counter` }, data: { n: '0' } });
  }
  const watchers: Watcher[] = [];
  for (let i = 0; i < (opts.watchers ?? 2); i++) watchers.push(new Watcher(t, ns, onError));

  let stopped = false;
  const writer = async (w: number): Promise<void> => {
    let seq = 0;
    let counter = 0;
    while (!stopped) {
      seq++;
      const update = seq % 3 === 0;
      let res: HttpResult;
      if (update) {
        const next = counter + 1;
        res = await request(t, 'PUT', `/api/v1/namespaces/${ns}/configmaps/w${w}-counter`,
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `w${w}-counter` }, data: { n: String(next) } });
        if (res.status === 200) {
          counter = next;
          acks.push({ writer: w, name: `w${w}-counter`, rv: rvOf(res.body), value: next, kind: 'update', at: Date.now() });
          continue;
        }
        // The counter goes up either way: a failed update may have been applied.
        counter = next;
      } else {
        const name = `w${w}-${seq}`;
        res = await request(t, 'POST', `/api/v1/namespaces/${ns}/configmaps`,
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { seq: String(seq) } });
        if (res.status === 201) {
          acks.push({ writer: w, name, rv: rvOf(res.body), value: seq, kind: 'create', at: Date.now() });
          continue;
        }
      }
      onError(res, update ? 'update' : 'create');
      await sleep(20);
    }
  };
  const running = Array.from({ length: writers }, (_, w) => writer(w));

  return {
    acks,
    errors,
    acked: () => acks.length,
    async abort() {
      stopped = true;
      for (const w of watchers) w.stop();
      await Promise.all(running);
    },
    async finish(recoverFrom?: number): Promise<FaultFigures> {
      stopped = true;
      await Promise.all(running);
      const details: string[] = [];
      // The final state, read consistently (retried until etcd answers).
      let list: HttpResult | undefined;
      for (let i = 0; i < 100; i++) {
        list = await request(t, 'GET', `/api/v1/namespaces/${ns}/configmaps`);
        if (list.status === 200) break;
        await sleep(200);
      }
      if (list?.status !== 200) throw new Error(`final list failed: ${list?.status} ${JSON.stringify(list?.body)}`);
      const items = new Map<string, any>(list.body.items.map((o: any) => [o.metadata.name, o]));
      // What the watchers must reach: the newest change in this namespace (the load only creates
      // and updates, so the newest object). The list's own revision may be a later write elsewhere
      // (another namespace, the server's own objects), which these watchers never see as an event,
      // and bookmarks come once a minute.
      const listRv = rvOf(list.body);
      const finalRv = list.body.items.reduce((m: number, o: any) => Math.max(m, rvOf(o)), 0);
      let writesLost = 0;
      const lastUpdate = new Map<number, Ack>();
      for (const a of acks) {
        if (a.kind === 'update') {
          const prev = lastUpdate.get(a.writer);
          if (!prev || a.value > prev.value) lastUpdate.set(a.writer, a);
          continue;
        }
        const o = items.get(a.name);
        if (!o || rvOf(o) !== a.rv || o.data?.seq !== String(a.value)) {
          writesLost++;
          if (details.length < 10) details.push(`lost create ${a.name}@${a.rv}: now ${o ? `${rvOf(o)} ${JSON.stringify(o.data)}` : 'absent'}`);
        }
      }
      for (const [w, a] of lastUpdate) {
        const o = items.get(`w${w}-counter`);
        const n = Number(o?.data?.n ?? -1);
        if (n < a.value || rvOf(o) < a.rv) {
          writesLost++;
          if (details.length < 10) details.push(`lost update w${w}-counter n=${a.value}@${a.rv}: now n=${n}@${rvOf(o)}`);
        }
      }
      // Watchers: wait until each has reached the final revision (bookmarks or events), then check.
      const deadline = Date.now() + 20_000;
      while (watchers.some((w) => w.lastRv < finalRv) && Date.now() < deadline) await sleep(100);
      let dupEvents = 0;
      let missedEvents = 0;
      let relists = 0;
      for (const [i, w] of watchers.entries()) {
        w.stop();
        dupEvents += w.dupEvents + w.outOfOrder;
        relists += w.relists;
        for (const v of w.violations) if (violations.length < 10) violations.push(`watcher ${i}: ${v}`);
        if (w.lastRv < finalRv && details.length < 10) details.push(`watcher ${i} reached rv ${w.lastRv}, not ${finalRv} (list rv ${listRv})`);
        for (const a of acks) {
          if (a.rv <= w.listedRv || a.rv > w.lastRv) continue;
          if (!w.seen.has(`${a.name}@${a.rv}`)) {
            missedEvents++;
            if (details.length < 10) details.push(`watcher ${i} missed ${a.name}@${a.rv} (listed at ${w.listedRv})`);
          }
        }
        if (w.lastRv < finalRv) missedEvents += acks.filter((a) => a.rv > w.lastRv && a.rv > w.listedRv).length;
      }
      await Promise.all(watchers.map((w) => w.done));
      const errorCodes: Record<string, number> = {};
      for (const e of errors) errorCodes[String(e.status)] = (errorCodes[String(e.status)] ?? 0) + 1;
      const slowest = errors.reduce<ErrorRecord | undefined>((m, e) => (!m || e.ms > m.ms ? e : m), undefined);
      let recoverMs: number | null = null;
      if (recoverFrom !== undefined) {
        const first = acks.filter((a) => a.at >= recoverFrom).sort((x, y) => x.at - y.at)[0];
        recoverMs = first ? first.at - recoverFrom : null;
      }
      return {
        writesAcked: acks.length,
        writesLost,
        dupEvents,
        missedEvents,
        relists,
        errorCodes,
        maxErrorLatencyMs: errors.reduce((m, e) => Math.max(m, e.ms), 0),
        slowestError: slowest && { what: slowest.what, status: slowest.status, ms: slowest.ms, message: slowest.message.slice(0, 200) },
        recoverMs,
        violations,
        details,
      };
    },
  };
}
