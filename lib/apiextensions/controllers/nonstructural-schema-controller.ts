/**
 * The NonStructuralSchema condition controller (Kubernetes' nonstructuralschema
 * ConditionController, apiextensions-apiserver pkg/controller/nonstructuralschema): a CRD that
 * preserves unknown fields or has a schema that is not structural (only possible for CRDs
 * written at apiextensions v1beta1) gets NonStructuralSchema True, reason Violations, the
 * violations as its message (or Unknown, reason StructuralError, when a schema cannot be read);
 * the condition goes when they are fixed. Looked at once per generation, as Kubernetes does.
 */
import { GenericStore } from '../../registry/store';
import { ApiObject } from '../../scheme/types';
import { FieldError, fieldErrors, formatFieldError } from '../../meta/field-errors';
import { toStructural } from '../../scheme/structural/structural';
import { validateStructural } from '../../scheme/structural/structural-validation';
import { findCondition, removeCondition, setCondition } from '../../registry/apiextensions/custom-resource-definitions/conditions';
import { crdSpec, crdStatus, crdVersions } from '../../registry/apiextensions/custom-resource-definitions/view';
import { CrdStatusController } from './crd-status-writer';

const TYPE = 'NonStructuralSchema';

interface Condition { status: 'True' | 'Unknown'; reason: string; message: string }

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Go's utilerrors.Aggregate text: one message, or the distinct ones in brackets. */
function aggregate(errs: FieldError[]): string {
  const messages = [...new Set(errs.map(formatFieldError))];
  return messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
}

/** calculateCondition: the condition the CRD should have, undefined when none. */
export function nonStructuralCondition(crd: ApiObject): Condition | undefined {
  const spec = crdSpec(crd);
  const errs: FieldError[] = [];
  if (spec.preserveUnknownFields === true) errs.push(fieldErrors.invalid('spec.preserveUnknownFields', true, 'must be false'));
  for (const [i, v] of crdVersions(spec).entries()) {
    const schema = isObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (schema === undefined || schema === null) continue;
    let structural;
    try {
      structural = toStructural(schema);
    } catch (e) {
      return { status: 'Unknown', reason: 'StructuralError', message: `failed to check validation schema for version ${v.name}: ${(e as Error).message}` };
    }
    errs.push(...validateStructural(`spec.versions[${i}].schema.openAPIV3Schema`, structural));
  }
  return errs.length ? { status: 'True', reason: 'Violations', message: aggregate(errs) } : undefined;
}

export class NonStructuralSchemaController extends CrdStatusController {
  private readonly lastSeenGeneration = new Map<string, number>();

  constructor(store: GenericStore, fieldManager: string) {
    super(store, 'nonstructural schema controller', fieldManager);
  }

  protected removed(name: string): void {
    this.lastSeenGeneration.delete(name);
  }

  protected async sync(name: string): Promise<void> {
    const crd = this.crds.get(name);
    if (!crd) return;
    const generation = Number(crd.metadata?.generation ?? 0);
    const seen = this.lastSeenGeneration.get(name);
    if (seen !== undefined && generation <= seen) return;
    const cond = nonStructuralCondition(crd);
    const old = findCondition(crd, TYPE);
    if (!cond && !old) return;
    if (cond && old && old.status === cond.status && old.reason === cond.reason && old.message === cond.message) return;
    const next: ApiObject = { ...crd, status: { ...crdStatus(crd), conditions: [...(crdStatus(crd).conditions ?? []).map((c) => ({ ...c }))] } };
    if (cond) setCondition(next, { type: TYPE, ...cond });
    else removeCondition(next, TYPE);
    if (await this.writeStatus(crd, next)) this.lastSeenGeneration.set(name, generation);
  }
}
