/** The cheaper AsyncResource.prototype.bind behaves as Node's own: scope, this, arguments, result. */
import { expect } from 'chai';
import { AsyncResource, executionAsyncId } from 'node:async_hooks';
import { installCheapAsyncResourceBind } from '../../../lib/storage/etcd3/async-bind';

describe('cheap AsyncResource.bind', () => {
  before(() => installCheapAsyncResourceBind());

  it('runs the function in the resource\'s async scope with its this, arguments and result', () => {
    const resource = new AsyncResource('test');
    const seen: unknown[] = [];
    const fn = function (this: unknown, a: number, b: number) { seen.push(executionAsyncId(), this); return a + b; };
    const bound = resource.bind(fn);
    const receiver = { r: 1 };
    expect(bound.call(receiver, 2, 3)).to.equal(5);
    expect(seen).to.deep.equal([resource.asyncId(), receiver]);
    expect(bound.length).to.equal(2);
    expect((bound as unknown as { asyncResource: AsyncResource }).asyncResource).to.equal(resource);
  });

  it('binds thisArg when given, and AsyncResource.bind (static) still works', () => {
    const resource = new AsyncResource('test');
    const self = { me: true };
    const bound = (resource.bind as (fn: () => unknown, thisArg: unknown) => () => unknown)(function (this: unknown) { return [this, executionAsyncId()]; }, self);
    expect(bound()).to.deep.equal([self, resource.asyncId()]);
    const staticBound = AsyncResource.bind((x: number) => x * 2);
    expect(staticBound(21)).to.equal(42);
  });

  it('refuses a non-function as Node does, and installs once', () => {
    expect(() => new AsyncResource('test').bind(42 as unknown as () => void)).to.throw(TypeError);
    const before = AsyncResource.prototype.bind;
    installCheapAsyncResourceBind();
    expect(AsyncResource.prototype.bind).to.equal(before);
  });
});
