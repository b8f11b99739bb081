/**
 * PriorityLevelConfiguration validation as Kubernetes 1.32's pkg/apis/flowcontrol/validation
 * (ValidatePriorityLevelConfiguration with AllowZeroLimitedNominalConcurrencyShares, which 1.30+
 * strategies always pass): field paths and messages as kube-apiserver answers them. The mandatory
 * levels keep the bootstrap spec; of `exempt`, only `spec.exempt` may change.
 */
import { FieldError, child, fieldErrors } from '../../../meta/field-errors';
import { MANDATORY_PRIORITY_LEVELS } from '../bootstrap-configuration';
import { flowcontrolSpecEqual } from '../spec-equal';
import { goPriorityLevelConfigurationSpec } from '../go-values';
import { invalidGo } from '../../../meta/go-print';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

const ENABLEMENTS = ['Exempt', 'Limited'];
const LIMIT_RESPONSE_TYPES = ['Queue', 'Reject'];
const MAX_QUEUES = 10 * 1000 * 1000;
/** shufflesharding.MaxHashBits. */
const MAX_HASH_BITS = 60;
/** The v1beta3 round-trip annotation, which must never reach the stored object. */
export const PRESERVE_ZERO_SHARES_ANNOTATION = 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares';

/** shufflesharding.RequiredEntropyBits. */
const requiredEntropyBits = (deckSize: number, handSize: number): number => Math.ceil(handSize * Math.log2(deckSize));

function validateQueuing(q: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const queues = num(q.queues);
  const handSize = num(q.handSize);
  const limit = num(q.queueLengthLimit);
  if (limit <= 0) errs.push(fieldErrors.invalid(child(path, 'queueLengthLimit'), limit, 'must be positive'));
  if (queues <= 0) errs.push(fieldErrors.invalid(child(path, 'queues'), queues, 'must be positive'));
  else if (queues > MAX_QUEUES) errs.push(fieldErrors.invalid(child(path, 'queues'), queues, `must not be greater than ${MAX_QUEUES}`));
  const hp = child(path, 'handSize');
  if (handSize <= 0) errs.push(fieldErrors.invalid(hp, handSize, 'must be positive'));
  else if (handSize > queues) errs.push(fieldErrors.invalid(hp, handSize, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, handSize) > MAX_HASH_BITS) {
    errs.push(fieldErrors.invalid(hp, handSize, `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`));
  }
  return errs;
}

function validateLimitResponse(lr: Json, path: string): FieldError[] {
  switch (lr.type) {
    case 'Reject':
      return lr.queuing != null ? [fieldErrors.forbidden(child(path, 'queuing'), 'must be nil if limited.limitResponse.type is not Limited')] : [];
    case 'Queue':
      return isObject(lr.queuing)
        ? validateQueuing(lr.queuing, child(path, 'queuing'))
        : [fieldErrors.required(child(path, 'queuing'), 'must not be empty if limited.limitResponse.type is Limited')];
    default:
      return [fieldErrors.notSupported(child(path, 'type'), text(lr.type), LIMIT_RESPONSE_TYPES)];
  }
}

function validateLimited(l: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const shares = num(l.nominalConcurrencyShares);
  if (shares < 0) errs.push(fieldErrors.invalid(child(path, 'nominalConcurrencyShares'), shares, 'must be a non-negative integer'));
  errs.push(...validateLimitResponse(isObject(l.limitResponse) ? l.limitResponse : {}, child(path, 'limitResponse')));
  if (typeof l.lendablePercent === 'number' && !(l.lendablePercent >= 0 && l.lendablePercent <= 100)) {
    errs.push(fieldErrors.invalid(child(path, 'lendablePercent'), l.lendablePercent, 'must be between 0 and 100, inclusive'));
  }
  if (typeof l.borrowingLimitPercent === 'number' && l.borrowingLimitPercent < 0) {
    errs.push(fieldErrors.invalid(child(path, 'borrowingLimitPercent'), l.borrowingLimitPercent, 'if specified, must be a non-negative integer'));
  }
  return errs;
}

function validateExempt(e: Json, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof e.nominalConcurrencyShares === 'number' && e.nominalConcurrencyShares < 0) {
    errs.push(fieldErrors.invalid(child(path, 'nominalConcurrencyShares'), e.nominalConcurrencyShares, 'must be a non-negative integer'));
  }
  if (typeof e.lendablePercent === 'number' && !(e.lendablePercent >= 0 && e.lendablePercent <= 100)) {
    errs.push(fieldErrors.invalid(child(path, 'lendablePercent'), e.lendablePercent, 'must be between 0 and 100, inclusive'));
  }
  return errs;
}

/** ValidatePriorityLevelConfigurationSpec. */
export function validatePriorityLevelConfigurationSpec(name: string, spec: Json, path = 'spec'): FieldError[] {
  const errs: FieldError[] = [];
  const type = text(spec.type);
  if ((name === 'exempt') !== (type === 'Exempt')) {
    errs.push(fieldErrors.invalid(child(path, 'type'), type, "type must be 'Exempt' if and only if name is 'exempt'"));
  }
  switch (type) {
    case 'Exempt':
      if (spec.limited != null) errs.push(fieldErrors.forbidden(child(path, 'limited'), 'must be nil if the type is not Limited'));
      if (isObject(spec.exempt)) errs.push(...validateExempt(spec.exempt, child(path, 'exempt')));
      break;
    case 'Limited':
      if (spec.exempt != null) errs.push(fieldErrors.forbidden(child(path, 'exempt'), 'must be nil if the type is Limited'));
      if (!isObject(spec.limited)) errs.push(fieldErrors.required(child(path, 'limited'), 'must not be empty when type is Limited'));
      else errs.push(...validateLimited(spec.limited, child(path, 'limited')));
      break;
    default:
      errs.push(fieldErrors.notSupported(child(path, 'type'), type, ENABLEMENTS));
  }
  return errs;
}

/** ValidateIfMandatoryPriorityLevelConfigurationObject. */
function validateMandatory(name: string, spec: Json): FieldError[] {
  const mandatory = MANDATORY_PRIORITY_LEVELS.find((pl) => pl.metadata.name === name);
  if (!mandatory) return [];
  if (name === 'exempt') {
    const have = { ...spec, exempt: mandatory.spec.exempt };
    return flowcontrolSpecEqual(have, mandatory.spec) ? []
      : [invalidGo('spec', goPriorityLevelConfigurationSpec(spec), "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value")];
  }
  return flowcontrolSpecEqual(spec, mandatory.spec) ? [] : [invalidGo('spec', goPriorityLevelConfigurationSpec(spec), `spec of '${name}' must equal the fixed value`)];
}

/** ValidatePriorityLevelConfigurationStatus: condition types present and unique. */
export function validatePriorityLevelConfigurationStatus(status: unknown, path = 'status'): FieldError[] {
  const errs: FieldError[] = [];
  const conditions = isObject(status) && Array.isArray(status.conditions) ? status.conditions : [];
  const seen = new Set<string>();
  conditions.forEach((c, i) => {
    const type = isObject(c) ? text(c.type) : '';
    const p = `${child(path, 'conditions')}[${i}]`;
    if (seen.has(type)) errs.push(fieldErrors.duplicate(child(p, 'type'), type));
    seen.add(type);
    if (type === '') errs.push(fieldErrors.required(child(p, 'type'), 'must not be empty'));
  });
  return errs;
}

/** ValidatePriorityLevelConfiguration less the metadata the store checks. */
export function validatePriorityLevelConfiguration(name: string, annotations: Record<string, string> | undefined,
  spec: Json, status: unknown): FieldError[] {
  const errs: FieldError[] = [];
  if (annotations && PRESERVE_ZERO_SHARES_ANNOTATION in annotations) {
    errs.push(fieldErrors.forbidden('metadata.annotations', `annotation '${PRESERVE_ZERO_SHARES_ANNOTATION}' is forbidden`));
  }
  errs.push(...validatePriorityLevelConfigurationSpec(name, spec));
  errs.push(...validateMandatory(name, spec));
  errs.push(...validatePriorityLevelConfigurationStatus(status));
  return errs;
}
