/**
 * The CRD status controllers every replica runs (naming, establishing, non-structural schema, cleanup), started and
 * stopped together; server.ts starts them before the CRD serving controller.
 */
import { GenericStore } from '../../registry/store';
import { ResourceDef } from '../../scheme/types';
import { Naming } from '../../naming';
import { NamingController } from './naming-controller';
import { EstablishingController } from './establishing-controller';
import { NonStructuralSchemaController } from './nonstructural-schema-controller';
import { CrdCleanupController, CrdCleanupOptions, CustomResourceStoreLookup } from './crd-cleanup-controller';

export interface CrdControllers {
  naming: NamingController;
  establishing: EstablishingController;
  nonStructural: NonStructuralSchemaController;
  cleanup: CrdCleanupController;
  stop(): Promise<void>;
}

export interface CrdControllerDeps {
  crds: GenericStore;
  /** The built-in resources (their names are taken). */
  builtins: () => readonly ResourceDef[];
  naming: Naming;
  /** The served store of a CRD's objects (the cleanup controller deletes through it). */
  customStore: CustomResourceStoreLookup;
  cleanup?: CrdCleanupOptions;
}

/** Starts the controllers over the CRD store. */
export async function startCrdControllers(deps: CrdControllerDeps): Promise<CrdControllers> {
  // Kubernetes' controllers write as the API server itself.
  const manager = `${deps.naming.flavor === 'kubernetes' ? 'kube' : 'orch'}-apiserver`;
  const isBuiltin = (group: string, resource: string) => deps.builtins().some((d) => d.group === group && d.resource === resource);
  const naming = new NamingController(deps.crds, deps.builtins, manager);
  const establishing = new EstablishingController(deps.crds, manager);
  const nonStructural = new NonStructuralSchemaController(deps.crds, manager);
  const cleanup = new CrdCleanupController(deps.crds, deps.customStore, isBuiltin,
    deps.naming.crdCleanupFinalizer, manager, deps.cleanup);
  await naming.start();
  await establishing.start();
  await nonStructural.start();
  await cleanup.start();
  return {
    naming, establishing, nonStructural, cleanup,
    stop: async () => { await cleanup.stop(); await naming.stop(); await establishing.stop(); await nonStructural.stop(); },
  };
}
