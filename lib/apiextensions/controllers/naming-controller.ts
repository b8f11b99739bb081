/**
 * The naming controller (Kubernetes' NamingConditionController, apiextensions-apiserver
 * pkg/controller/status/naming_controller.go): decides which of a CRD's requested names it may
 * have (`status.acceptedNames`) and sets NamesAccepted, and Established to False until the
 * establishing controller takes over. Names are checked against the accepted names of the other
 * CRDs of the same group (plural, singular and short names share one set; kind and list kind
 * another) and, a deliberate strengthening over Kubernetes, against the built-in resources of
 * that group. A name a CRD already has stays its own. Runs in every replica, as in
 * kube-apiserver; one worker, since deciding names of one group is not safe in parallel.
 */
import { GenericStore } from '../../registry/store';
import { ResourceDef, ApiObject } from '../../scheme/types';
import { findCondition, setCondition } from '../../registry/apiextensions/custom-resource-definitions/conditions';
import { CrdNames, crdNames, crdSpec, crdStatus, semanticEqual } from '../../registry/apiextensions/custom-resource-definitions/view';
import { CrdStatusController } from './crd-status-writer';

type Condition = { type: string; status: 'True' | 'False' | 'Unknown'; reason: string; message: string };

/** The names in use in a group: resources (plural, singular, short names) and kinds. */
export interface UsedNames { resources: Set<string>; kinds: Set<string> }

const inUse = (name: string | undefined) => `${JSON.stringify(name ?? '')} is already in use`;

/** Kubernetes' equalToAcceptedOrFresh: undefined when the name may be taken, else the message. */
function conflict(requested: string | undefined, accepted: string | undefined, used: Set<string>): string | undefined {
  if ((requested ?? '') === (accepted ?? '')) return undefined;
  return used.has(requested ?? '') ? inUse(requested) : undefined;
}

/** utilerrors.NewAggregate(...).Error(): one message alone, several deduplicated in brackets. */
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/**
 * Kubernetes' calculateNamesAndConditions: the accepted names, NamesAccepted and Established of
 * `crd` given the names `used` in its group (its own accepted names included).
 */
export function calculateNames(crd: ApiObject, used: UsedNames): { names: CrdNames; namesAccepted: Condition; established: Condition } {
  const requested = crdNames(crdSpec(crd));
  const accepted = crdStatus(crd).acceptedNames ?? {};
  const names: CrdNames = { ...accepted };
  let namesAccepted: Condition = { type: 'NamesAccepted', status: 'Unknown', reason: '', message: '' };
  const refuse = (reason: string, message: string) => { namesAccepted = { ...namesAccepted, status: 'False', reason, message }; };

  const plural = conflict(requested.plural, accepted.plural, used.resources);
  if (plural) refuse('PluralConflict', plural); else names.plural = requested.plural;
  const singular = conflict(requested.singular, accepted.singular, used.resources);
  if (singular) refuse('SingularConflict', singular); else names.singular = requested.singular;
  if (!semanticEqual(requested.shortNames, accepted.shortNames)) {
    const mine = new Set(accepted.shortNames ?? []);
    const errs = (requested.shortNames ?? []).filter((s) => !mine.has(s)).map((s) => conflict(s, '', used.resources)).filter((m): m is string => !!m);
    if (errs.length) refuse('ShortNamesConflict', aggregate(errs)); else names.shortNames = requested.shortNames;
  }
  const kind = conflict(requested.kind, accepted.kind, used.kinds);
  if (kind) refuse('KindConflict', kind); else names.kind = requested.kind;
  const listKind = conflict(requested.listKind, accepted.listKind, used.kinds);
  if (listKind) refuse('ListKindConflict', listKind); else names.listKind = requested.listKind;
  names.categories = requested.categories;
  if (names.categories === undefined) delete names.categories;
  if (names.shortNames === undefined) delete names.shortNames;

  if (namesAccepted.status === 'Unknown') namesAccepted = { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
  const old = findCondition(crd, 'Established');
  let established: Condition = old
    ? { type: 'Established', status: old.status as Condition['status'], reason: old.reason ?? '', message: old.message ?? '' }
    : { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
  if (established.status !== 'True' && namesAccepted.status === 'True') {
    established = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
  }
  return { names, namesAccepted, established };
}

/** Kubernetes' IsCRDConditionEquivalent: same type, status, reason and message. */
function sameCondition(a: Condition, b: ReturnType<typeof findCondition>): boolean {
  return !!b && a.type === b.type && a.status === b.status && a.reason === (b.reason ?? '') && a.message === (b.message ?? '');
}

export class NamingController extends CrdStatusController {
  /** @param builtins the built-in resources (their names are taken in their group) */
  constructor(store: GenericStore, private readonly builtins: () => readonly ResourceDef[], fieldManager: string) {
    super(store, 'naming controller', fieldManager, 1);
  }

  /** The names in use in `group`: accepted names of its CRDs and its built-in resources. */
  usedNames(group: string): UsedNames {
    const used: UsedNames = { resources: new Set(), kinds: new Set() };
    for (const crd of this.crds.values()) {
      if (crdSpec(crd).group !== group) continue;
      const a = crdStatus(crd).acceptedNames ?? {};
      for (const n of [a.plural, a.singular, ...(a.shortNames ?? [])]) used.resources.add(n ?? '');
      used.kinds.add(a.kind ?? '');
      used.kinds.add(a.listKind ?? '');
    }
    for (const def of this.builtins()) {
      if (def.group !== group) continue;
      for (const n of [def.resource, def.singular, ...def.shortNames]) used.resources.add(n);
      used.kinds.add(def.kind);
      used.kinds.add(def.listKind);
    }
    return used;
  }

  protected async sync(name: string): Promise<void> {
    const crd = this.crds.get(name);
    if (!crd) return;
    const spec = crdSpec(crd);
    if (semanticEqual(spec.names, crdStatus(crd).acceptedNames)) return;
    const { names, namesAccepted, established } = calculateNames(crd, this.usedNames(spec.group ?? ''));
    if (semanticEqual(crdStatus(crd).acceptedNames, names) && sameCondition(namesAccepted, findCondition(crd, 'NamesAccepted'))) return;
    const next: ApiObject = { ...crd, status: { ...crdStatus(crd), acceptedNames: names, conditions: [...(crdStatus(crd).conditions ?? []).map((c) => ({ ...c }))] } };
    setCondition(next, namesAccepted);
    setCondition(next, established);
    if (await this.writeStatus(crd, next)) this.requeueGroup(spec.group ?? '', name);
  }

  /** A name taken or freed may settle another CRD of the group. */
  protected removed(): void {
    for (const [other] of this.crds) this.enqueue(other);
  }

  private requeueGroup(group: string, except: string): void {
    for (const [other, crd] of this.crds) if (other !== except && crdSpec(crd).group === group) this.enqueue(other);
  }
}
