/**
 * The CRD status controllers every replica runs (naming, establishing), started and stopped
 * together; server.ts starts them before the CRD serving controller.
 */
import { GenericStore } from '../../registry/store';
import { ResourceDef } from '../../scheme/types';
import { Naming } from '../../naming';
import { NamingController } from './naming-controller';
import { EstablishingController } from './establishing-controller';

export interface CrdControllers {
  naming: NamingController;
  establishing: EstablishingController;
  stop(): Promise<void>;
}

/** Starts the controllers over the CRD store; `builtins` are the built-in resources (their names are taken). */
export async function startCrdControllers(deps: { crds: GenericStore; builtins: () => readonly ResourceDef[]; naming: Naming }): Promise<CrdControllers> {
  // Kubernetes' controllers write as the API server itself.
  const manager = `${deps.naming.flavor === 'kubernetes' ? 'kube' : 'orch'}-apiserver`;
  const naming = new NamingController(deps.crds, deps.builtins, manager);
  const establishing = new EstablishingController(deps.crds, manager);
  await naming.start();
  await establishing.start();
  return {
    naming, establishing,
    stop: async () => { await naming.stop(); await establishing.stop(); },
  };
}
