/**
 * Creates the namespaces that always exist (default, system, public, and the node lease namespace
 * kube-apiserver's system-namespaces controller creates too), retrying while etcd comes up.
 */
import { GenericStore } from '../registry/store';
import { Naming } from '../naming';
import { logger } from '../logger';

const ATTEMPTS = 30;

export async function bootstrapNamespaces(store: GenericStore, naming: Naming): Promise<void> {
  for (const name of [naming.defaultNamespace, naming.systemNamespace, naming.publicNamespace, naming.nodeLeaseNamespace]) {
    for (let attempt = 1; ; attempt++) {
      try {
        // Read first, as Kubernetes' system-namespaces controller does: a namespace that exists
        // needs no write (so admission that refuses writes, e.g. AlwaysDeny, does not stop a restart).
        if (await store.get(undefined, name).then(() => true, (e) => { if (e.code === 404) return false; throw e; })) break;
        await store.create({}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false });
        logger.info('created namespace', { namespace: name });
        break;
      } catch (err) {
        const code = (err as { code?: number | string }).code;
        if (code === 409) break;
        if (attempt >= ATTEMPTS) throw err;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }
}
