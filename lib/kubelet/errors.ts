/**
 * The errors kube-apiserver answers when reaching a kubelet or pod fails, in its words:
 *  - an error that is not a Status (a dial that failed, an answer that is not an upgrade) is
 *    answered by apimachinery's ErrorToAPIStatus: 500, no reason, the error's text as message;
 *  - a kubelet's non-2xx answer to a log request becomes NewGenericServerResponse's Status
 *    (its code, a reason by code, the kubelet's body as an UnexpectedServerResponse cause);
 *  - Go's net and TLS error texts, so a client sees what it would see from kube-apiserver.
 */
import { ApiError, type Status, type StatusReason } from '../meta/api-errors';

/** A Status without a reason (Kubernetes' StatusReasonUnknown, omitted from the JSON). */
class ReasonlessError extends ApiError {
  toStatus(): Status {
    const s = super.toStatus();
    delete s.reason;
    return s;
  }
}

/** ErrorToAPIStatus of an error that is not a Status: 500 with the error's text. */
export function plainError(message: string): ApiError {
  return new ReasonlessError(500, 'Unknown', message);
}

const GENERIC: Record<number, [StatusReason, string]> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  403: ['Forbidden', 'the server does not allow access to the requested resource'],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  406: ['NotAcceptable', 'the server was unable to respond with a content type that the client supports'],
  409: ['Conflict', 'the server reported a conflict'],
  415: ['UnsupportedMediaType', 'the server was unable to respond with a content type that the client supports'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
};

/**
 * apimachinery's NewGenericServerResponse(code, "", resource, name, body, 0, false), as
 * LocationStreamer's response checker answers a kubelet's non-2xx answer to pods/log.
 */
export function genericServerResponse(code: number, resource: string, name: string, serverMessage: string): ApiError {
  let [reason, message]: [StatusReason | '', string] = GENERIC[code] ?? ['', `the server responded with the status code ${code} but did not return more information`];
  if (!GENERIC[code] && code >= 500) {
    reason = 'InternalError';
    message = `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`;
  }
  // The verb is empty in LocationStreamer's call: Go's format leaves its space.
  message = `${message} ( ${resource} ${name})`;
  const details = { name, kind: resource, causes: [{ reason: 'UnexpectedServerResponse', message: serverMessage }] };
  return reason ? new ApiError(code, reason, message, details) : new ReasonlessError(code, 'Unknown', message, details);
}

/** crypto/tls alert names of the alerts a kubelet sends when it refuses a client. */
const TLS_ALERTS: Record<number, string> = {
  40: 'handshake failure', 42: 'bad certificate', 43: 'unsupported certificate', 44: 'revoked certificate',
  45: 'expired certificate', 46: 'unknown certificate', 48: 'unknown certificate authority', 70: 'protocol version not supported',
  80: 'internal error', 116: 'certificate required',
};

/** Go's text of a failed dial or TLS handshake to `host:port` (net.OpError, crypto/tls, x509). */
export function dialErrorText(err: NodeJS.ErrnoException, host: string, port: number): string {
  const addr = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (err.code) {
    case 'ECONNREFUSED': return `dial tcp ${addr}: connect: connection refused`;
    case 'ECONNRESET': return `read tcp ${addr}: read: connection reset by peer`;
    case 'EHOSTUNREACH': return `dial tcp ${addr}: connect: no route to host`;
    case 'ENETUNREACH': return `dial tcp ${addr}: connect: network is unreachable`;
    case 'ETIMEDOUT': return `dial tcp ${addr}: i/o timeout`;
    case 'ENOTFOUND': case 'EAI_AGAIN': return `dial tcp: lookup ${host}: no such host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE': case 'SELF_SIGNED_CERT_IN_CHAIN': case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT': case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY': case 'CERT_SIGNATURE_FAILURE':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED': return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': return `tls: failed to verify certificate: x509: certificate is valid for other names, not ${host}`;
    case 'ERR_SSL_WRONG_VERSION_NUMBER': return 'tls: first record does not look like a TLS handshake';
    default:
      // OpenSSL's words for a peer that does not speak TLS (a plain-HTTP kubelet), in Go's.
      if (/wrong version number/i.test(err.message)) return 'tls: first record does not look like a TLS handshake';
      // A TLS alert from the peer (it refused our client certificate, or none was given), as Go names it.
      const alert = /alert number (\d+)/i.exec(err.message);
      if (alert) return `remote error: tls: ${TLS_ALERTS[Number(alert[1])] ?? `alert(${alert[1]})`}`;
      return `dial tcp ${addr}: ${err.message.trim()}`;
  }
}
