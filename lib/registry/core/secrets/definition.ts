/**
 * Secret (core/v1, namespaced): base64 data, write-only stringData merged into data on write
 * (and never returned), a type that cannot change and whose known kinds require keys
 * (secret-types.ts), immutable data, 1 MiB of values at most.
 */
import { ApiObject, ResourceDef } from '../../../scheme/types';
import { secretSchema } from './schema';
import { FieldError, fieldErrors } from '../../../meta/field-errors';
import { TableColumns, ageColumn, column, nameColumn } from '../../../meta/table';
import { translateTimestampSince } from '../../../meta/human-duration';
import { MAX_DATA_BYTES, base64MapProblem, payloadBytes, stringMapProblem, validateImmutable, validateKeys } from '../config-data';
import { validateSecretType } from './secret-types';
import { Naming, flavors } from '../../../naming';

/** stringData overrides data key by key, then disappears; it is never stored or returned. */
function mergeStringData(obj: ApiObject): void {
  const stringData = obj.stringData as Record<string, string> | undefined;
  if (stringData) {
    const data = { ...((obj.data as Record<string, string>) ?? {}) };
    for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(v, 'utf8').toString('base64');
    obj.data = data;
  }
  delete obj.stringData;
}

/** ValidateSecret: valid keys, values within MaxSecretSize, and the keys the type requires. */
function validate(obj: ApiObject, naming: Naming): FieldError[] {
  const data = obj.data as Record<string, string> | undefined;
  const errs = validateKeys(data, 'data');
  if (payloadBytes(data, true) > MAX_DATA_BYTES) errs.push(fieldErrors.tooLong('data', MAX_DATA_BYTES));
  if (typeof obj.type !== 'string' || !obj.type) errs.push(fieldErrors.required('type'));
  return [...errs, ...validateSecretType(obj, naming)];
}

/** kubectl's NAME TYPE DATA AGE: DATA counts the keys of data. */
const secretTable: TableColumns = {
  columns: [
    nameColumn,
    column('Type', 'string', 'Used to facilitate programmatic handling of secret data.'),
    column('Data', 'string', 'Data contains the secret data. Each key must consist of alphanumeric characters, \'-\', \'_\' or \'.\'. The serialized form of the secret data is a base64 encoded string.'),
    ageColumn,
  ],
  cells: (obj, now) => [
    obj.metadata?.name ?? '',
    typeof obj.type === 'string' ? obj.type : '',
    Object.keys((obj.data as object | undefined) ?? {}).length,
    translateTimestampSince(obj.metadata?.creationTimestamp, now),
  ],
};

/** The Secret kind; the token types and annotation are the flavor's (orch by default). */
export function secretResource(naming: Naming = flavors.orch): ResourceDef {
  return {
    group: '', version: 'v1', kind: 'Secret', listKind: 'SecretList', resource: 'secrets', singular: 'secret',
    namespaced: true, shortNames: [], categories: [],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: [], deleteReturnsStatus: true, nameValidation: 'dns-subdomain', schema: secretSchema,
    table: secretTable,
    strategy: {
      allowUnconditionalUpdate: true,
      checkDecode: (obj) => stringMapProblem(obj, 'data', 'Secret') ?? base64MapProblem(obj, 'data')
        ?? stringMapProblem(obj, 'stringData', 'Secret')
        ?? (obj.type !== undefined && typeof obj.type !== 'string' ? 'json: cannot unmarshal into Go struct field Secret.type of type v1.SecretType' : undefined),
      // stringData is merged before validation so that its keys and size are checked too.
      prepareForCreate: (obj) => { mergeStringData(obj); if (!obj.type) obj.type = 'Opaque'; },
      prepareForUpdate: (obj) => { mergeStringData(obj); if (!obj.type) obj.type = 'Opaque'; },
      validate: (obj) => validate(obj, naming),
      validateUpdate: (obj, old) => {
        const errs = [...validate(obj, naming), ...validateImmutable(obj, old, ['data'])];
        if (obj.type !== old.type) errs.push(fieldErrors.immutable('type', obj.type));
        return errs;
      },
      fieldSet: (obj) => ({ type: String(obj.type ?? '') }),
      selectableFields: ['type'],
    },
  };
}
