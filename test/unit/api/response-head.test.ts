/**
 * The hot-path header helpers (lib/api/response-head.ts) set what Koa's own setters set, the
 * first time (asked of Koa) and every time after (remembered), and nothing once headers are sent.
 */
import { expect } from 'chai';
import http from 'node:http';
import { Socket } from 'node:net';
import Koa from 'koa';
import { setContentType, setHeader } from '../../../lib/api/response-head';

const app = new Koa();
const contextOf = () => {
  const req = new http.IncomingMessage(new Socket());
  req.method = 'GET';
  req.url = '/';
  return app.createContext(req, new http.ServerResponse(req));
};

/** What Koa's `ctx.type = mediaType` leaves in Content-Type. */
const koaContentType = (mediaType: string) => {
  const ctx = contextOf();
  ctx.type = mediaType;
  return ctx.response.get('Content-Type');
};

describe('response-head', () => {
  const mediaTypes = [
    'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf',
    'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch',
    'application/json;as=Table;v=v1;g=meta.k8s.io', 'application/jwk-set+json', 'text/plain',
  ];

  it('sets the Content-Type Koa sets, on the first call and on later ones', () => {
    for (const mediaType of mediaTypes) {
      const expected = koaContentType(mediaType);
      for (let i = 0; i < 3; i++) {
        const ctx = contextOf();
        setContentType(ctx, mediaType);
        expect(ctx.response.get('Content-Type'), `${mediaType} (call ${i + 1})`).to.equal(expected);
      }
    }
    // Koa's charset rule, which clients see: JSON gets one, protobuf does not.
    expect(koaContentType('application/json')).to.equal('application/json; charset=utf-8');
    expect(koaContentType('application/vnd.kubernetes.protobuf')).to.equal('application/vnd.kubernetes.protobuf');
  });

  it('a type Koa does not know leaves no Content-Type, as Koa does', () => {
    for (let i = 0; i < 2; i++) {
      const ctx = contextOf();
      setContentType(ctx, 'not a type');
      expect(ctx.res.hasHeader('Content-Type')).to.equal(false);
    }
  });

  it('changes nothing once the headers are sent', () => {
    const ctx = contextOf();
    setContentType(ctx, 'application/json');
    setHeader(ctx, 'Audit-Id', 'a');
    ctx.res.writeHead(200);
    setContentType(ctx, 'application/yaml');
    setHeader(ctx, 'Audit-Id', 'b');
    expect(ctx.res.getHeader('content-type')).to.equal('application/json; charset=utf-8');
    expect(ctx.res.getHeader('audit-id')).to.equal('a');
  });
});
