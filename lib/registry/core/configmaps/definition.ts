/** ConfigMap (core/v1, namespaced): string data, binary data, immutable. */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { configMapSchema } from './schema';
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { MAX_DATA_BYTES, base64MapProblem, payloadBytes, stringMapProblem, validateImmutable, validateKeys, validateUtf8Values } from '../config-data';

/** The ConfigMap in the system namespace that tells extension API servers how to authenticate clients (kept by the authentication-info controller). */
export const AUTHENTICATION_CONFIGMAP = 'extension-apiserver-authentication';

/**
 * ValidateConfigMap: valid keys, a key in data is not also in binaryData (reported on data),
 * data values are UTF-8, and all values together fit MaxSecretSize (reported on the object).
 */
function validate(obj: ApiObject): FieldError[] {
  const data = obj.data as Record<string, string> | undefined;
  const binary = obj.binaryData as Record<string, string> | undefined;
  const errs = validateKeys(data, 'data');
  for (const key of Object.keys(data ?? {})) {
    if (binary && Object.hasOwn(binary, key)) errs.push(fieldErrors.invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
  }
  errs.push(...validateUtf8Values(data, 'data'), ...validateKeys(binary, 'binaryData'));
  if (payloadBytes(data, false) + payloadBytes(binary, true) > MAX_DATA_BYTES) errs.push(fieldErrors.tooLong('', MAX_DATA_BYTES));
  return errs;
}

/** kubectl's NAME DATA AGE: DATA counts the keys of data and binaryData. */
const configMapTable: TableColumns = {
  columns: [nameColumn, column('Data', 'string', 'Data contains the configuration data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'.'), ageColumn],
  cells: (obj, now) => [
    obj.metadata?.name ?? '',
    Object.keys((obj.data as object | undefined) ?? {}).length + Object.keys((obj.binaryData as object | undefined) ?? {}).length,
    translateTimestampSince(obj.metadata?.creationTimestamp, now),
  ],
};

export function configMapResource(): ResourceDef {
  return {
    group: '', version: 'v1', kind: 'ConfigMap', listKind: 'ConfigMapList', resource: 'configmaps', singular: 'configmap',
    namespaced: true, shortNames: ['cm'], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [], deleteReturnsStatus: true, nameValidation: 'dns-subdomain', schema: configMapSchema,
    table: configMapTable,
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => stringMapProblem(obj, 'data', 'ConfigMap') ?? stringMapProblem(obj, 'binaryData', 'ConfigMap')
        ?? base64MapProblem(obj, 'binaryData')
        ?? (obj.immutable !== undefined && obj.immutable !== null && typeof obj.immutable !== 'boolean'
          ? 'json: cannot unmarshal into Go struct field ConfigMap.immutable of type bool' : undefined),
      validate: (obj) => validate(obj),
      validateUpdate: (obj, old) => [...validate(obj), ...validateImmutable(obj, old, ['data', 'binaryData'])],
    },
  };
}
