/**
 * The answer to a request method this server never hands to its application (CONNECT, whose
 * target names a host to tunnel to, not a resource): 405 with Kubernetes' Status, as the
 * protocol sides write it themselves (http1/connection.ts, http2/server-session.ts).
 */
export const METHOD_NOT_ALLOWED_BODY = JSON.stringify({
  kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
  message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405,
});
