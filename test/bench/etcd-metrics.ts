/**
 * etcd's own count of watches, from its Prometheus endpoint (`<client URL>/metrics`): how the
 * benchmarks show that client watches are served by the watch cache, not by new etcd watches.
 */
import http from 'node:http';

export interface EtcdWatchGauges {
  /** `etcd_debugging_mvcc_watcher_total`: open watches (one per watched key range). */
  watchers: number;
  /** `etcd_debugging_mvcc_watch_stream_total`: open gRPC watch streams (watches are multiplexed on them). */
  watchStreams: number;
}

/** Reads the two gauges; rejects when etcd does not answer or does not export them. */
export async function readEtcdWatchGauges(endpoint: string): Promise<EtcdWatchGauges> {
  const text = await get(`${endpoint.replace(/\/+$/, '')}/metrics`);
  return {
    watchers: gauge(text, 'etcd_debugging_mvcc_watcher_total'),
    watchStreams: gauge(text, 'etcd_debugging_mvcc_watch_stream_total'),
  };
}

function gauge(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (!m) throw new Error(`etcd /metrics has no ${name}`);
  return Number(m[1]);
}

function get(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => { body += c; });
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`GET ${url}: ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url}: timed out`)));
    req.on('error', reject);
  });
}
