/**
 * The AuthenticationConfiguration file of --authentication-config (apiserver.config.k8s.io
 * v1alpha1 and v1beta1, the versions Kubernetes 1.32 reads; both have the same fields), decoded
 * from YAML or JSON as Kubernetes decodes it: strictly (an unknown or duplicated field is an
 * error naming its path), fields of the wrong JSON type refused. What the fields mean is checked
 * by validation.ts; this file only reads their shape.
 */
import { yaml } from '../../lazy-packages';

export const AUTHENTICATION_CONFIG_GROUP = 'apiserver.config.k8s.io';
export const AUTHENTICATION_CONFIG_VERSIONS = ['v1alpha1', 'v1beta1'] as const;

export interface Issuer {
  url: string;
  discoveryURL?: string;
  /** PEM, inline (not a file name). */
  certificateAuthority?: string;
  audiences: string[];
  audienceMatchPolicy?: string;
}

export interface ClaimValidationRule { claim?: string; requiredValue?: string; expression?: string; message?: string }

/** username and groups: a claim with a prefix (unset differs from ''), or an expression. */
export interface PrefixedClaimOrExpression { claim?: string; prefix?: string; expression?: string }
export interface ClaimOrExpression { claim?: string; expression?: string }
export interface ExtraMapping { key: string; valueExpression: string }

export interface ClaimMappings {
  username: PrefixedClaimOrExpression;
  groups: PrefixedClaimOrExpression;
  uid: ClaimOrExpression;
  extra: ExtraMapping[];
}

export interface UserValidationRule { expression: string; message?: string }

export interface JwtAuthenticator {
  issuer: Issuer;
  claimValidationRules: ClaimValidationRule[];
  claimMappings: ClaimMappings;
  userValidationRules: UserValidationRule[];
}

export interface AnonymousCondition { path: string }
export interface AnonymousConfig { enabled: boolean; conditions: AnonymousCondition[] }

export interface AuthenticationConfiguration {
  jwt: JwtAuthenticator[];
  /** Absent: --anonymous-auth decides. */
  anonymous?: AnonymousConfig;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A reader of one object: checks its keys against the known ones, reads typed fields. */
class Reader {
  constructor(private readonly o: Json, private readonly path: string, known: string[]) {
    for (const k of Object.keys(o)) {
      if (!known.includes(k)) throw new Error(`strict decoding error: unknown field "${this.at(k)}"`);
    }
  }

  at(k: string): string {
    return this.path ? `${this.path}.${k}` : k;
  }

  string(k: string): string | undefined {
    const v = this.o[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw typeError(this.at(k), 'string', v);
    return v;
  }

  bool(k: string): boolean | undefined {
    const v = this.o[k];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw typeError(this.at(k), 'bool', v);
    return v;
  }

  strings(k: string): string[] {
    return this.list(k, (v, p) => {
      if (typeof v !== 'string') throw typeError(p, 'string', v);
      return v;
    });
  }

  object(k: string): Json | undefined {
    const v = this.o[k];
    if (v === undefined || v === null) return undefined;
    if (!isObject(v)) throw typeError(this.at(k), 'object', v);
    return v;
  }

  list<T>(k: string, item: (v: unknown, path: string) => T): T[] {
    const v = this.o[k];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) throw typeError(this.at(k), 'array', v);
    return v.map((x, i) => item(x, `${this.at(k)}[${i}]`));
  }
}

function typeError(path: string, want: string, v: unknown): Error {
  const got = Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v;
  return new Error(`json: cannot unmarshal ${got} into Go struct field ${path} of type ${want}`);
}

function objectAt(v: unknown, path: string): Json {
  if (!isObject(v)) throw typeError(path, 'object', v);
  return v;
}

function prefixed(o: Json | undefined, path: string): PrefixedClaimOrExpression {
  if (!o) return {};
  const r = new Reader(o, path, ['claim', 'prefix', 'expression']);
  return { claim: r.string('claim'), prefix: r.string('prefix'), expression: r.string('expression') };
}

function jwtAuthenticator(v: unknown, path: string): JwtAuthenticator {
  const r = new Reader(objectAt(v, path), path, ['issuer', 'claimValidationRules', 'claimMappings', 'userValidationRules']);
  const io = r.object('issuer') ?? {};
  const ir = new Reader(io, r.at('issuer'), ['url', 'discoveryURL', 'certificateAuthority', 'audiences', 'audienceMatchPolicy', 'egressSelectorType']);
  if (io.egressSelectorType !== undefined) throw new Error(`strict decoding error: unknown field "${ir.at('egressSelectorType')}"`);
  const issuer: Issuer = {
    url: ir.string('url') ?? '', discoveryURL: ir.string('discoveryURL'), certificateAuthority: ir.string('certificateAuthority'),
    audiences: ir.strings('audiences'), audienceMatchPolicy: ir.string('audienceMatchPolicy'),
  };
  const claimValidationRules = r.list('claimValidationRules', (x, p) => {
    const cr = new Reader(objectAt(x, p), p, ['claim', 'requiredValue', 'expression', 'message']);
    return { claim: cr.string('claim'), requiredValue: cr.string('requiredValue'), expression: cr.string('expression'), message: cr.string('message') };
  });
  const mo = r.object('claimMappings') ?? {};
  const mr = new Reader(mo, r.at('claimMappings'), ['username', 'groups', 'uid', 'extra']);
  const uo = mr.object('uid');
  const uid: ClaimOrExpression = {};
  if (uo) {
    const ur = new Reader(uo, mr.at('uid'), ['claim', 'expression']);
    uid.claim = ur.string('claim');
    uid.expression = ur.string('expression');
  }
  const claimMappings: ClaimMappings = {
    username: prefixed(mr.object('username'), mr.at('username')),
    groups: prefixed(mr.object('groups'), mr.at('groups')),
    uid,
    extra: mr.list('extra', (x, p) => {
      const er = new Reader(objectAt(x, p), p, ['key', 'valueExpression']);
      return { key: er.string('key') ?? '', valueExpression: er.string('valueExpression') ?? '' };
    }),
  };
  const userValidationRules = r.list('userValidationRules', (x, p) => {
    const ur = new Reader(objectAt(x, p), p, ['expression', 'message']);
    return { expression: ur.string('expression') ?? '', message: ur.string('message') };
  });
  return { issuer, claimValidationRules, claimMappings, userValidationRules };
}

/**
 * The configuration in `text` (YAML or JSON), or throws one line saying what is wrong with its
 * shape (Kubernetes' wording where it has one).
 */
export function decodeAuthenticationConfiguration(text: string): AuthenticationConfiguration {
  if (text.trim() === '') throw new Error('empty config data');
  let doc: unknown;
  try {
    doc = yaml().parse(text, { uniqueKeys: true });
  } catch (err) {
    throw new Error(`error converting YAML to JSON: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!isObject(doc)) throw new Error("Object 'Kind' is missing in the configuration");
  const apiVersion = typeof doc.apiVersion === 'string' ? doc.apiVersion : '';
  const kind = typeof doc.kind === 'string' ? doc.kind : '';
  if (!kind) throw new Error(`Object 'Kind' is missing in '${JSON.stringify(doc).slice(0, 200)}'`);
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  if (group !== AUTHENTICATION_CONFIG_GROUP || !(AUTHENTICATION_CONFIG_VERSIONS as readonly string[]).includes(version) || kind !== 'AuthenticationConfiguration') {
    throw new Error(`no kind "${kind}" is registered for version "${apiVersion}" in scheme: AuthenticationConfiguration of ${AUTHENTICATION_CONFIG_VERSIONS.map((v) => `${AUTHENTICATION_CONFIG_GROUP}/${v}`).join(' or ')} expected`);
  }
  const r = new Reader(doc, '', ['apiVersion', 'kind', 'jwt', 'anonymous']);
  const jwt = r.list('jwt', jwtAuthenticator);
  const ao = r.object('anonymous');
  let anonymous: AnonymousConfig | undefined;
  if (ao) {
    const ar = new Reader(ao, 'anonymous', ['enabled', 'conditions']);
    anonymous = {
      enabled: ar.bool('enabled') ?? false,
      conditions: ar.list('conditions', (x, p) => {
        const cr = new Reader(objectAt(x, p), p, ['path']);
        return { path: cr.string('path') ?? '' };
      }),
    };
  }
  return anonymous ? { jwt, anonymous } : { jwt };
}
