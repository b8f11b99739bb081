/**
 * Every pod of one namespace as a watch sees it, from a list's resourceVersion on: when each was
 * first seen, its creationTimestamp, when it was first seen Running, and whether it still exists.
 * A watch the server ends is opened again from the last resourceVersion seen. Pod startup is
 * creationTimestamp -> first seen Running, as Kubernetes' density test measures it.
 */
import { ApiClient, ServerConnection } from './api-client';
import { Http2WatchClient, WatchStream } from './watch-stream';

interface PodState {
  created: number;
  firstSeen: number;
  running?: number;
  /** When the watch saw it DELETED. */
  gone?: number;
}

interface WatchEvent {
  type: string;
  object: { metadata: { name: string; resourceVersion: string; creationTimestamp?: string }; status?: { phase?: string }; code?: number; message?: string };
}

export class PodTracker {
  private readonly pods = new Map<string, PodState>();
  private readonly watches: Http2WatchClient;
  private stream?: WatchStream;
  private resourceVersion = '';
  private error?: string;

  constructor(private readonly conn: ServerConnection, private readonly namespace: string) {
    this.watches = new Http2WatchClient(conn, 1);
  }

  async start(): Promise<void> {
    const client = new ApiClient(this.conn, 1);
    try {
      const list = await client.json('GET', `/api/v1/namespaces/${this.namespace}/pods`);
      for (const p of list.items) this.apply({ type: 'ADDED', object: p });
      this.resourceVersion = list.metadata.resourceVersion;
    } finally {
      await client.close();
    }
    await this.open();
  }

  private async open(): Promise<void> {
    this.stream = this.watches.open(`/api/v1/namespaces/${this.namespace}/pods?watch=1&resourceVersion=${this.resourceVersion}`, (lines) => {
      for (const line of lines) if (line) this.apply(JSON.parse(line) as WatchEvent);
    });
    const status = await this.stream.status;
    if (status !== 200) throw new Error(`watch of pods in ${this.namespace}: HTTP ${status}`);
  }

  private apply(e: WatchEvent): void {
    if (e.type === 'ERROR') {
      this.error = `watch error ${e.object.code}: ${e.object.message}`;
      return;
    }
    const now = Date.now();
    const { name, resourceVersion, creationTimestamp } = e.object.metadata;
    this.resourceVersion = resourceVersion;
    let pod = this.pods.get(name);
    if (!pod) {
      pod = { created: creationTimestamp ? Date.parse(creationTimestamp) : now, firstSeen: now };
      this.pods.set(name, pod);
    }
    if (e.type === 'DELETED') pod.gone = now;
    else if (pod.running === undefined && e.object.status?.phase === 'Running') pod.running = now;
  }

  /** Throws when the watch failed; reopens it when the server ended it. */
  async check(): Promise<void> {
    if (this.error) throw new Error(this.error);
    if (this.stream?.endedEarly) await this.open();
  }

  /** Pods that exist and were seen Running. */
  get running(): number {
    let n = 0;
    for (const p of this.pods.values()) if (p.gone === undefined && p.running !== undefined) n++;
    return n;
  }

  /** Pods that exist (not deleted yet). */
  get live(): number {
    let n = 0;
    for (const p of this.pods.values()) if (p.gone === undefined) n++;
    return n;
  }

  /** The last time a pod was first seen Running (ms since the epoch). */
  get lastRunning(): number {
    let t = 0;
    for (const p of this.pods.values()) if (p.running !== undefined) t = Math.max(t, p.running);
    return t;
  }

  /** The last time a pod was seen DELETED (ms since the epoch). */
  get lastGone(): number {
    let t = 0;
    for (const p of this.pods.values()) if (p.gone !== undefined) t = Math.max(t, p.gone);
    return t;
  }

  /**
   * Startup latencies in ms of every pod seen Running: from its creationTimestamp (whole seconds,
   * so up to 1 s longer than the truth) and from the watch's first sight of it (shorter than the
   * truth by the create's delivery to the watch).
   */
  startups(): { fromCreation: number[]; fromFirstSeen: number[] } {
    const fromCreation: number[] = [];
    const fromFirstSeen: number[] = [];
    for (const p of this.pods.values()) {
      if (p.running === undefined) continue;
      fromCreation.push(p.running - p.created);
      fromFirstSeen.push(p.running - p.firstSeen);
    }
    return { fromCreation, fromFirstSeen };
  }

  close(): void {
    this.stream?.close();
    this.watches.close();
  }
}
