/**
 * PriorityLevelConfiguration at flowcontrol.apiserver.k8s.io v1beta1, v1beta2 and v1beta3
 * (removed from Kubernetes in 1.26, 1.29 and 1.32; ../beta-versions.ts), served over v1's
 * objects (stored at v1) through the def's `versioning`, as autoscaling/v1 HorizontalPodAutoscaler
 * is: reads, lists and watches convert the stored objects, writes store their v1 form, and v1's
 * strategy hooks run on the v1 form (patches and apply work on the version's own shape). The versions differ from v1 in the
 * Limited level's concurrency shares, as Kubernetes' conversions and defaults have them
 * (pkg/apis/flowcontrol/<version>/conversion.go, defaults.go):
 * - v1beta1 and v1beta2 call it `assuredConcurrencyShares`, a value (written always), defaulted
 *   to 30 when 0 or unset; it is v1's `nominalConcurrencyShares` under another name. Their
 *   other fields are the ones the Go types of those versions have in Kubernetes' last releases
 *   (lendablePercent, borrowingLimitPercent, the exempt section), so no v1 field is lost.
 * - v1beta3 calls it `nominalConcurrencyShares`, a value defaulted to 30 when 0 unless the
 *   object carries the annotation `flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares`;
 *   a v1 object whose shares are 0 is served at v1beta3 with that annotation (value ""), so it
 *   reads back as 0, and the annotation is dropped on the way in (v1 forbids it).
 * Validation errors about the shares name v1beta1's and v1beta2's field as Kubernetes'
 * getVersionedFieldNameForConcurrencyShares does.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { decodeProblem } from '../../../scheme/decode-check';
import { FieldError } from '../../../meta/field-errors';
import { Schema, int32 } from '../../../scheme/schema';
import { TypeReshape, schemaAtVersion } from '../../../scheme/versioned-schema';
import { FLOWCONTROL_BETAS, FlowcontrolBeta, betaLifecycle } from '../beta-versions';
import { defaultPriorityLevelConfiguration, priorityLevelConfigurationResource } from './definition';
import { priorityLevelConfigurationSchema } from './schema';
import { PRESERVE_ZERO_SHARES_ANNOTATION } from './validation';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const limitedOf = (obj: ApiObject): Json | undefined => (isObject(obj.spec) && isObject(obj.spec.limited) ? obj.spec.limited : undefined);

const V1_SHARES = 'nominalConcurrencyShares';
const OLD_SHARES = 'assuredConcurrencyShares';
/** Kubernetes' default of the shares. */
const DEFAULT_SHARES = 30;

/** `limited` with its shares field `from` renamed `to` (first, as Go writes it), in place on `obj`. */
function renameShares(obj: ApiObject, from: string, to: string, missing?: number): void {
  const limited = limitedOf(obj);
  if (!limited) return;
  const { [from]: shares, ...rest } = limited;
  const value = shares ?? missing;
  (obj.spec as Json).limited = value === undefined ? rest : { [to]: value, ...rest };
}

/** A v1beta1 or v1beta2 object as its v1 form (in place). */
export const assuredToNominal = (obj: ApiObject): void => renameShares(obj, OLD_SHARES, V1_SHARES);
/** A v1 object as v1beta1 or v1beta2 serve it (a copy); the value field is written always. */
export function nominalToAssured(obj: ApiObject): ApiObject {
  const out = structuredClone(obj);
  renameShares(out, V1_SHARES, OLD_SHARES, 0);
  return out;
}

/** The annotations without the v1beta3 round-trip key (no map when none is left), in place. */
function dropPreserveZero(obj: ApiObject): void {
  const annotations = obj.metadata?.annotations;
  if (!annotations || !(PRESERVE_ZERO_SHARES_ANNOTATION in annotations)) return;
  const { [PRESERVE_ZERO_SHARES_ANNOTATION]: _dropped, ...kept } = annotations;
  if (Object.keys(kept).length) obj.metadata!.annotations = kept;
  else delete obj.metadata!.annotations;
}

/** A v1 object as v1beta3 serves it (a copy): zero shares get the annotation that keeps them zero. */
export function toV1beta3(obj: ApiObject): ApiObject {
  const limited = limitedOf(obj);
  if (!limited || (limited[V1_SHARES] ?? 0) !== 0 || obj.metadata?.annotations?.[PRESERVE_ZERO_SHARES_ANNOTATION] !== undefined) return obj;
  const out = structuredClone(obj);
  (out.spec as Json).limited = { ...limited, [V1_SHARES]: 0 };
  out.metadata = { ...out.metadata, annotations: { ...out.metadata?.annotations, [PRESERVE_ZERO_SHARES_ANNOTATION]: '' } };
  return out;
}

/** A v1beta3 object as its v1 form (in place). */
export const fromV1beta3 = dropPreserveZero;

/** SetDefaults of the version over its own shape: the shares' default, then v1's defaults of the other fields. */
function defaultAt(version: FlowcontrolBeta, obj: ApiObject): void {
  const limited = limitedOf(obj);
  const field = version === 'v1beta3' ? V1_SHARES : OLD_SHARES;
  const preserveZero = version === 'v1beta3' && obj.metadata?.annotations?.[PRESERVE_ZERO_SHARES_ANNOTATION] !== undefined;
  if (limited && !limited[field] && !preserveZero) limited[field] = DEFAULT_SHARES;
  if (version === 'v1beta3') { defaultPriorityLevelConfiguration(obj); return; }
  assuredToNominal(obj);
  defaultPriorityLevelConfiguration(obj);
  renameShares(obj, V1_SHARES, OLD_SHARES, 0);
}

/** The schema of a version: v1's under the version's type names, v1beta1's and v1beta2's shares renamed. */
function schemaOf(version: FlowcontrolBeta): Schema {
  const reshape: Record<string, TypeReshape> = version === 'v1beta3' ? {} : {
    LimitedPriorityLevelConfiguration: (copy) => {
      const { [V1_SHARES]: _v1, ...rest } = copy.properties ?? {};
      return {
        ...copy,
        properties: {
          [OLD_SHARES]: int32('`assuredConcurrencyShares` (ACS) configures the execution limit, which is a limit on the number of requests of this priority level that may be exeucting at a given time.  ACS must be a positive number. The server\'s concurrency limit (SCL) is divided among the concurrency-controlled priority levels in proportion to their assured concurrency shares. This produces the assured concurrency value (ACV) --- the number of requests that may be executing at a time --- for each such priority level:\n\n            ACV(l) = ceil( SCL * ACS(l) / ( sum[priority levels k] ACS(k) ) )\n\nbigger numbers of ACS mean more reserved concurrent requests (at the expense of every other PL). This field has a default value of 30.'),
          ...rest,
        },
      };
    },
  };
  return schemaAtVersion(priorityLevelConfigurationSchema, 'io.k8s.api.flowcontrol.v1', `io.k8s.api.flowcontrol.${version}`, reshape);
}

/** v1's errors with the shares' path as the version names the field. */
const renamedErrors = (errs: FieldError[]): FieldError[] => errs.map((e) => (e.field.endsWith(`.limited.${V1_SHARES}`)
  ? { ...e, field: e.field.replace(new RegExp(`${V1_SHARES}$`), OLD_SHARES) } : e));

/** Replaces the contents of `obj` by those of `next` (strategy hooks change their argument). */
function replaceContents(obj: ApiObject, next: ApiObject): void {
  for (const k of Object.keys(obj)) delete obj[k];
  Object.assign(obj, next);
}

function priorityLevelConfigurationBetaResource(group: string, version: FlowcontrolBeta): ResourceDef {
  const v1 = priorityLevelConfigurationResource(group);
  const s = v1.strategy;
  const schema = schemaOf(version);
  const served = `${group}/${version}`;
  const [toV1, fromV1] = version === 'v1beta3' ? [fromV1beta3, toV1beta3] : [assuredToNominal, nominalToAssured];
  const errorsAt = version === 'v1beta3' ? (errs: FieldError[]) => errs : renamedErrors;
  /** The v1 form of an object in this version's shape (a copy). */
  const asV1 = (obj: ApiObject): ApiObject => { const o = structuredClone(obj); toV1(o); o.apiVersion = `${group}/v1`; return o; };
  const asServed = (obj: ApiObject): ApiObject => ({ ...fromV1(obj), apiVersion: served });
  /** Runs a v1 hook on the object's v1 form and takes the result back (in place). */
  const viaV1 = (obj: ApiObject, change: (v: ApiObject) => void): void => { const v = asV1(obj); change(v); replaceContents(obj, asServed(v)); };
  return {
    ...v1,
    ...betaLifecycle(group, v1.kind, version),
    schema,
    // Reads, lists and watches convert the stored v1 objects; writes store their v1 form.
    storageVersion: 'v1',
    versioning: {
      fromStorage: async (objects) => objects.map(asServed),
      toStorage: async (object) => asV1(object),
      servesStored: () => false,
    },
    // The columns of 1.32's printer, over the object's v1 form.
    table: v1.table && { ...v1.table, cells: (obj, now) => v1.table!.cells(asV1(obj as ApiObject), now) },
    strategy: {
      ...s,
      checkDecode: (obj) => decodeProblem(obj, schema, v1.kind),
      default: (obj) => defaultAt(version, obj),
      prepareForCreate: (obj, ctx) => { defaultAt(version, obj); viaV1(obj, (v) => s.prepareForCreate?.(v, ctx)); },
      prepareForUpdate: (obj, old, ctx) => { defaultAt(version, obj); viaV1(obj, (v) => s.prepareForUpdate?.(v, asV1(old), ctx)); },
      specChanged: (obj, old) => s.specChanged?.(asV1(obj), asV1(old)) ?? false,
      validate: (obj, ctx) => errorsAt(s.validate?.(asV1(obj), ctx) ?? []),
      validateUpdate: (obj, old, ctx) => errorsAt(s.validateUpdate?.(asV1(obj), asV1(old), ctx) ?? []),
    },
  };
}

/** The PriorityLevelConfiguration defs of v1beta1, v1beta2 and v1beta3. */
export const priorityLevelConfigurationBetaResources = (group: string): ResourceDef[] =>
  FLOWCONTROL_BETAS.map((v) => priorityLevelConfigurationBetaResource(group, v));
