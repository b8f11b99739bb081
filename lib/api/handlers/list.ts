/** GET a collection: selectors, chunks (limit/continue) and the list's resourceVersion. */
import { ResourceScope, listBody } from './scope';
import { wantsCompactJson, writeObject } from '../response-writer';
import { negotiateResponse } from '../negotiation';
import { represent } from '../represent';
import { parseListOptions } from '../query';
import { list } from '../../registry/list';
import { sendJsonList } from '../json-list-body';

export function selectableFields(s: ResourceScope): string[] {
  const base = ['metadata.name'];
  if (s.store.def.namespaced) base.push('metadata.namespace');
  return [...base, ...(s.store.def.strategy.selectableFields ?? [])];
}

export async function handleList(s: ResourceScope): Promise<void> {
  const opts = parseListOptions(new URLSearchParams(s.ctx.querystring), selectableFields(s));
  const n = negotiateResponse(s.ctx.get('accept'), 'list', { apiVersion: s.store.apiVersion, kind: s.store.def.kind });
  // Plain compact JSON is assembled from the items' JSON bytes: no parse/stringify per item.
  const raw = wantsCompactJson(s.ctx, n);
  const result = await list(s.store, s.info.namespace, opts, raw);
  const metadata: Record<string, unknown> = { resourceVersion: result.resourceVersion };
  // The spec: `continue` is the empty string when the list is complete (Kubernetes omits it; both read the same).
  metadata.continue = result.continue;
  if (result.remainingItemCount !== undefined) metadata.remainingItemCount = result.remainingItemCount;
  if (raw && result.rawItems) {
    const head = JSON.stringify({ kind: s.store.def.listKind, apiVersion: s.store.apiVersion, metadata }).slice(0, -1);
    await sendJsonList(s.ctx, n.mediaType, `${head},"items":[`, result.rawItems, ']}\n');
    return;
  }
  writeObject(s.ctx, 200, represent(s.store.def, listBody(s, result.items, metadata), n, s.ctx.querystring), n);
}
