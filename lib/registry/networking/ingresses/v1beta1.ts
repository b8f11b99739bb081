/**
 * Ingress at networking.k8s.io/v1beta1 and at extensions/v1beta1: both removed from Kubernetes
 * in 1.22, served here only when `--runtime-config` switches their group version on
 * (deprecated, with Kubernetes' warning). Both serve networking v1's objects (stored at v1; the
 * extensions one is Kubernetes' cohabitating resource, `storageGroup` networking), converted on
 * the way in and out by their `versioning` (conversion.ts: `backend`, `serviceName`,
 * `servicePort`). An object written at any of the three versions is read, listed and watched
 * at the others, one object with one resourceVersion.
 *
 * A v1beta1 write is defaulted as v1beta1 defines it (a path without `pathType` gets
 * ImplementationSpecific), then prepared and validated as v1 is (validation.ts over the v1
 * form), with the field paths and the message Kubernetes gives a v1beta1 request
 * (`spec.backend`, `serviceName`, `servicePort`: validation.go's defaultBackendFieldName,
 * serviceNameFieldPath, numberPortField, namedPortField). `/status` and the table are v1's; the
 * DefaultIngressClass admission plugin acts on the networking group's Ingresses only, as in
 * Kubernetes.
 */
import { ObjectVersioning, ResourceDef } from '../../../scheme/types';
import { FieldError } from '../../../meta/field-errors';
import { decodeProblem } from '../../../scheme/decode-check';
import { Naming } from '../../../naming';
import { ingressResource } from './definition';
import { ingressFromV1beta1, ingressToV1beta1 } from './conversion';
import { IngressV1beta1Package, ingressV1beta1Schemas } from './schema-v1beta1';

const KIND = 'Ingress';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** SetDefaults_HTTPIngressPath of v1beta1 (both groups), in place. */
export function defaultIngressV1beta1(obj: Json): void {
  const rules = isObject(obj.spec) && Array.isArray(obj.spec.rules) ? obj.spec.rules : [];
  for (const rule of rules) {
    const paths = isObject(rule) && isObject(rule.http) && Array.isArray(rule.http.paths) ? rule.http.paths : [];
    for (const p of paths) if (isObject(p) && (p.pathType === undefined || p.pathType === null)) p.pathType = 'ImplementationSpecific';
  }
}

/** [v1 field path pattern, v1beta1 replacement] as Kubernetes names the fields of a v1beta1 request. */
const PATHS: ReadonlyArray<[RegExp, string]> = [
  [/^spec\.defaultBackend/, 'spec.backend'],
  [/\.service\.name$/, '.serviceName'],
  [/\.service\.port\.(name|number)$/, '.servicePort'],
];

/** Errors of v1's validation as a v1beta1 request gets them. */
export function asV1beta1Errors(errs: FieldError[]): FieldError[] {
  return errs.map((e) => ({
    ...e,
    field: PATHS.reduce((f, [re, to]) => f.replace(re, to), e.field),
    message: e.message.replace('either `defaultBackend` or `rules`', 'either `backend` or `rules`'),
  }));
}

/** Ingress at `<group of pkg>/v1beta1`, over networking v1's objects; off unless --runtime-config switches it on. */
export function ingressV1beta1Resource(naming: Naming, pkg: IngressV1beta1Package): ResourceDef {
  const v1 = ingressResource(naming);
  const s = v1.strategy;
  const schema = ingressV1beta1Schemas[pkg];
  const group = pkg === 'extensions' ? 'extensions' : v1.group;
  const apiVersion = `${group}/v1beta1`;
  const v1ApiVersion = `${v1.group}/${v1.version}`;
  const toV1 = (obj: Json) => ingressFromV1beta1(obj, v1ApiVersion);
  const versioning: ObjectVersioning = {
    fromStorage: async (objects) => objects.map((o) => ingressToV1beta1(o, apiVersion)),
    toStorage: async (object) => toV1(object),
    servesStored: () => false,
  };
  return {
    ...v1,
    group, version: 'v1beta1', schema,
    servedByDefault: false,
    deprecation: { deprecatedIn: [1, pkg === 'extensions' ? 14 : 19], removedIn: [1, 22], replacement: { group: v1.group, version: v1.version, kind: KIND } },
    storageVersion: v1.version,
    ...(pkg === 'extensions' ? { storageGroup: v1.group } : {}),
    versioning,
    strategy: {
      ...s,
      checkDecode: (obj) => decodeProblem(obj, schema, KIND),
      default: defaultIngressV1beta1,
      prepareForCreate: (obj, ctx) => { defaultIngressV1beta1(obj); s.prepareForCreate?.(obj, ctx); },
      prepareForUpdate: (obj, old, ctx) => { defaultIngressV1beta1(obj); s.prepareForUpdate?.(obj, old, ctx); },
      // Compared in v1's form, as Kubernetes compares internal objects: a backend read without its zero servicePort is unchanged.
      specChanged: (obj, old) => s.specChanged?.(toV1(obj), toV1(old)) ?? false,
      validate: (obj, ctx) => asV1beta1Errors(s.validate?.(toV1(obj), ctx) ?? []),
      validateUpdate: (obj, old, ctx) => asV1beta1Errors(s.validateUpdate?.(toV1(obj), toV1(old), ctx) ?? []),
    },
  };
}
