/**
 * The control-plane suite's ways of asking the cluster, shared by its test files: kubectl as the
 * admin that must succeed, `kubectl get -o json`, and polling until a check holds (with the
 * components' log tails in the message when it never does).
 */
import { expect } from 'chai';
import type { ControlPlaneCluster } from './cluster';
import type { KubectlResult } from '../helpers/kubectl';

/** A JSON object kubectl printed, read field by field as the assertions need. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Obj = any;

export interface ClusterChecks {
  kubectl(args: string[], timeoutMs?: number): Promise<KubectlResult>;
  /** kubectl that must exit 0; its stdout. */
  ok(args: string[], timeoutMs?: number): Promise<string>;
  getJson(args: string[]): Promise<Obj>;
  /** Polls `check` (which throws while not yet true) every second until `timeoutMs`. */
  eventually<T>(what: string, timeoutMs: number, check: () => Promise<T>): Promise<T>;
}

export function clusterChecks(cluster: ControlPlaneCluster): ClusterChecks {
  const kubectl = async (args: string[], timeoutMs = 60_000): Promise<KubectlResult> => cluster.kubectl(args, { timeoutMs });
  const ok = async (args: string[], timeoutMs = 60_000): Promise<string> => {
    const r = await kubectl(args, timeoutMs);
    expect(r.code, `kubectl ${args.join(' ')}: ${r.stderr}\n${cluster.tails()}`).to.equal(0);
    return r.stdout;
  };
  return {
    kubectl, ok,
    getJson: async (args) => JSON.parse(await ok(['get', ...args, '-o', 'json'])),
    async eventually<T>(what: string, timeoutMs: number, check: () => Promise<T>): Promise<T> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        try {
          return await check();
        } catch (err) {
          if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs / 1000} s: ${(err as Error).message}\n${cluster.tails()}`);
        }
        await new Promise((r) => setTimeout(r, 1_000));
      }
    },
  };
}
