/**
 * The establishing controller (Kubernetes' EstablishingController, apiextensions-apiserver
 * pkg/controller/establish/establishing_controller.go): once a CRD's names are accepted, sets
 * Established True ("InitialNamesAccepted"); Established never goes back. Runs in every replica,
 * as in kube-apiserver (idempotent: a replica that lost the race sees a conflict and the CRD
 * already Established). Kubernetes waits 5 s in HA before establishing; the serving controller
 * here serves on NamesAccepted already, so there is no wait.
 */
import { GenericStore } from '../../registry/store';
import { ApiObject } from '../../scheme/types';
import { isTrue, setCondition } from '../../registry/apiextensions/custom-resource-definitions/conditions';
import { crdStatus } from '../../registry/apiextensions/custom-resource-definitions/view';
import { CrdStatusController } from './crd-status-writer';

export class EstablishingController extends CrdStatusController {
  constructor(store: GenericStore, fieldManager: string) {
    super(store, 'establishing controller', fieldManager, 2);
  }

  protected async sync(name: string): Promise<void> {
    const crd = this.crds.get(name);
    if (!crd || !isTrue(crd, 'NamesAccepted') || isTrue(crd, 'Established')) return;
    const next: ApiObject = { ...crd, status: { ...crdStatus(crd), conditions: [...(crdStatus(crd).conditions ?? []).map((c) => ({ ...c }))] } };
    setCondition(next, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
    await this.writeStatus(crd, next);
  }
}
