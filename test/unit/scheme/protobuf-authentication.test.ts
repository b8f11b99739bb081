/**
 * Protobuf for authentication/v1's request-and-answer kinds (TokenRequest, TokenReview,
 * SelfSubjectReview), as `kubectl create token` and `kubectl auth whoami` send them:
 * - every field survives JSON -> protobuf -> JSON, in both spellings of the group, with
 *   `extra` (a map of string to ExtraValue, Go's []string newtype) holding several values;
 * - byte equality with protoc --encode vectors, and the vectors read back as Kubernetes' JSON
 *   shows them (Go value fields written always, nil pointers not, empty structs absent).
 */
import { expect } from 'chai';
import { requireProtoc, protocEncode } from '../../helpers/protoc';
import { PROTOBUF_PREFIX, decodeProtobuf, encodeProtobuf, hasProtobuf } from '../../../lib/scheme/protobuf';
import { decodeMessage, encodeMessage } from '../../../lib/scheme/protobuf/message-codec';
import { ApiObject } from '../../../lib/scheme/types';

const UID = '0f5c5f0e-8d0e-4c8b-9a49-3f0e1b8b7a11';
const T0 = '2024-01-01T00:00:00Z'; // 1704067200
const T1 = '2024-01-01T01:00:00Z'; // 1704070800
const AV = 'authentication.k8s.io/v1';
const PKG = 'k8s.io.api.authentication.v1';
type Obj = Record<string, any>;

const userInfo = (): Obj => ({
  username: 'system:serviceaccount:default:builder',
  uid: UID,
  groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
  extra: {
    'authentication.kubernetes.io/pod-name': ['web-0'],
    'authentication.kubernetes.io/pod-uid': [UID],
    scopes: ['read', 'write', ''],
    empty: [],
  },
});

const tokenRequest = (apiVersion = AV): ApiObject => ({
  apiVersion, kind: 'TokenRequest',
  metadata: { name: 'builder', namespace: 'default', uid: UID, creationTimestamp: T0 },
  spec: {
    audiences: ['https://kubernetes.default.svc', 'vault'],
    expirationSeconds: 3600,
    boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'web-0', uid: UID },
  },
  status: { token: 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln', expirationTimestamp: T1 },
});

const tokenReview = (apiVersion = AV): ApiObject => ({
  apiVersion, kind: 'TokenReview',
  metadata: { creationTimestamp: T0 },
  spec: { token: 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln', audiences: ['https://kubernetes.default.svc', 'vault'] },
  status: { authenticated: true, user: userInfo(), audiences: ['vault'], error: 'partly' },
});

const selfSubjectReview = (apiVersion = AV): ApiObject => ({
  apiVersion, kind: 'SelfSubjectReview',
  metadata: { creationTimestamp: T0 },
  status: { userInfo: userInfo() },
});

/** Octal escapes of `bytes` for a textproto string. */
function octal(bytes: Buffer): string {
  return [...bytes].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');
}

/** ObjectMeta as Go writes an unset one: every value field, the zero time as an empty message. */
const EMPTY_META = 'metadata { name: "" generateName: "" namespace: "" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp {} }';
const META_T0 = 'metadata { name: "" generateName: "" namespace: "" selfLink: "" uid: "" resourceVersion: "" generation: 0 creationTimestamp { seconds: 1704067200 nanos: 0 } }';

/** UserInfo of userInfo() in textproto: extra's keys sorted, an empty ExtraValue written empty. */
const USER_INFO = `
  username: "system:serviceaccount:default:builder" uid: "${UID}"
  groups: "system:serviceaccounts" groups: "system:serviceaccounts:default" groups: "system:authenticated"
  extra { key: "authentication.kubernetes.io/pod-name" value { items: "web-0" } }
  extra { key: "authentication.kubernetes.io/pod-uid" value { items: "${UID}" } }
  extra { key: "empty" value {} }
  extra { key: "scopes" value { items: "read" items: "write" items: "" } }`;

describe('protobuf for authentication/v1 (TokenRequest, TokenReview, SelfSubjectReview)', () => {
  it('has protobuf for the three kinds in both spellings of the group, and no list messages', () => {
    for (const group of ['authentication.k8s.io', 'authentication.orch.io']) {
      for (const kind of ['TokenRequest', 'TokenReview', 'SelfSubjectReview']) {
        expect(hasProtobuf(`${group}/v1`, kind), `${group} ${kind}`).to.equal(true);
        expect(hasProtobuf(`${group}/v1`, `${kind}List`), `${group} ${kind}List`).to.equal(false);
      }
    }
    expect(hasProtobuf('v1', 'TokenRequest')).to.equal(false);
  });

  describe('round trips JSON -> protobuf -> JSON with every field set', () => {
    for (const make of [tokenRequest, tokenReview, selfSubjectReview]) {
      for (const apiVersion of [AV, 'authentication.orch.io/v1']) {
        it(`${make().kind} (${apiVersion})`, () => {
          const buf = encodeProtobuf(make(apiVersion));
          expect(buf.subarray(0, 4)).to.deep.equal(PROTOBUF_PREFIX);
          expect(decodeProtobuf(buf)).to.deep.equal(make(apiVersion));
        });
      }
    }

    it('extra keeps every value of every key, in order, and an empty list', () => {
      const back = decodeProtobuf(encodeProtobuf(tokenReview())) as Obj;
      expect(back.status.user.extra).to.deep.equal(userInfo().extra);
      expect(back.status.user.extra.scopes).to.deep.equal(['read', 'write', '']);
    });

    it('keeps expirationSeconds 0 (a pointer) and token "" (no omitempty), drops an unset boundObjectRef', () => {
      const req = { apiVersion: AV, kind: 'TokenRequest', spec: { audiences: ['a'], expirationSeconds: 0 }, status: { token: '' } };
      expect(decodeProtobuf(encodeProtobuf(req))).to.deep.equal(req);
    });

    it("writes Kubernetes' field numbers (bytes written out by hand as Go marshals them)", () => {
      // TokenRequestSpec: audiences (1), boundObjectRef (3) {kind, apiVersion, name "" then uid (4)}, expirationSeconds (4).
      const spec = { audiences: ['a'], expirationSeconds: 1, boundObjectRef: { uid: 'u' } };
      expect(encodeMessage(`${PKG}.TokenRequestSpec`, spec).toString('hex')).to.equal('0a0161' + '1a09' + '0a00' + '1200' + '1a00' + '220175' + '2001');
      // UserInfo: username (1), uid (2), extra (4) entries {key (1), value (2) ExtraValue {items (1)}}.
      const user = { extra: { k: ['v', 'w'] } };
      expect(encodeMessage(`${PKG}.UserInfo`, user).toString('hex')).to.equal('0a00' + '1200' + '220b' + '0a016b' + '1206' + '0a0176' + '0a0177');
      // TokenReviewStatus: authenticated (1), user (2), error (3) before audiences (4) on the wire.
      const status = { authenticated: true, audiences: ['x'], error: 'e' };
      expect(encodeMessage(`${PKG}.TokenReviewStatus`, status).toString('hex')).to.equal('0801' + '1204' + '0a001200' + '1a0165' + '220178');
    });

    it('refuses an extra value that is not a list of strings', () => {
      const bad = (value: unknown) => ({ ...selfSubjectReview(), status: { userInfo: { username: 'u', extra: { k: value } } } });
      expect(() => encodeProtobuf(bad('one'))).to.throw(/list of strings/);
      expect(() => encodeProtobuf(bad([1]))).to.throw(/list of strings/);
    });
  });

  describe('byte equality with protoc --encode', function () {
    this.timeout(300_000);
    before(requireProtoc);

    it('TokenRequest as kubectl create token --duration sends it (unset status and boundObjectRef)', () => {
      const vector = protocEncode(`${PKG}.TokenRequest`, `
        ${EMPTY_META}
        spec { audiences: "https://kubernetes.default.svc" expirationSeconds: 600 }
        status { token: "" expirationTimestamp {} }`);
      const sent = { spec: { audiences: ['https://kubernetes.default.svc'], expirationSeconds: 600 } };
      expect(encodeMessage(`${PKG}.TokenRequest`, sent).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage(`${PKG}.TokenRequest`, vector)).to.deep.equal({ ...sent, status: { token: '' } });
    });

    it('TokenRequest answered with every field (boundObjectRef uid is field 4, the time whole seconds)', () => {
      const vector = protocEncode(`${PKG}.TokenRequest`, `
        metadata {
          name: "builder" generateName: "" namespace: "default" selfLink: "" uid: "${UID}" resourceVersion: "" generation: 0
          creationTimestamp { seconds: 1704067200 nanos: 0 }
        }
        spec {
          audiences: "https://kubernetes.default.svc" audiences: "vault"
          boundObjectRef { kind: "Pod" apiVersion: "v1" name: "web-0" uid: "${UID}" }
          expirationSeconds: 3600
        }
        status { token: "eyJhbGciOiJSUzI1NiJ9.e30.c2ln" expirationTimestamp { seconds: 1704070800 nanos: 0 } }`);
      const { apiVersion: _a, kind: _k, ...fields } = tokenRequest();
      expect(encodeMessage(`${PKG}.TokenRequest`, fields).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage(`${PKG}.TokenRequest`, vector)).to.deep.equal(fields);
    });

    it('TokenReview with a user whose extra has several keys and values, in its envelope', () => {
      const vector = protocEncode(`${PKG}.TokenReview`, `
        ${META_T0}
        spec { token: "eyJhbGciOiJSUzI1NiJ9.e30.c2ln" audiences: "https://kubernetes.default.svc" audiences: "vault" }
        status { authenticated: true user { ${USER_INFO} } audiences: "vault" error: "partly" }`);
      const { apiVersion: _a, kind: _k, ...fields } = tokenReview();
      expect(encodeMessage(`${PKG}.TokenReview`, fields).toString('hex')).to.equal(vector.toString('hex'));
      expect(decodeMessage(`${PKG}.TokenReview`, vector)).to.deep.equal(fields);
      const unknown = protocEncode('k8s.io.apimachinery.pkg.runtime.Unknown',
        `typeMeta { apiVersion: "${AV}" kind: "TokenReview" } raw: "${octal(vector)}" contentEncoding: "" contentType: ""`);
      expect(encodeProtobuf(tokenReview()).toString('hex')).to.equal(Buffer.concat([PROTOBUF_PREFIX, unknown]).toString('hex'));
    });

    it('SelfSubjectReview as kubectl auth whoami sends it (all empty) and as the server answers it', () => {
      const asked = protocEncode(`${PKG}.SelfSubjectReview`, `${EMPTY_META} status { userInfo { username: "" uid: "" } }`);
      expect(encodeMessage(`${PKG}.SelfSubjectReview`, {}).toString('hex')).to.equal(asked.toString('hex'));
      expect(decodeMessage(`${PKG}.SelfSubjectReview`, asked)).to.deep.equal({});

      const answered = protocEncode(`${PKG}.SelfSubjectReview`, `${META_T0} status { userInfo { ${USER_INFO} } }`);
      const { apiVersion: _a, kind: _k, ...fields } = selfSubjectReview();
      expect(encodeMessage(`${PKG}.SelfSubjectReview`, fields).toString('hex')).to.equal(answered.toString('hex'));
      expect(decodeMessage(`${PKG}.SelfSubjectReview`, answered)).to.deep.equal(fields);
    });
  });
});
