/**
 * The tokens controller (Kubernetes' serviceaccount tokens controller) for Secrets of the
 * flavor's service-account-token type, whose annotation `<label domain>/service-account.name`
 * names their account:
 * - a token Secret whose account exists gets what it lacks of `data.token` (a legacy token signed
 *   by the token generator), `data.ca.crt` (the root CA) and `data.namespace`, and the account's
 *   uid in the annotation `<label domain>/service-account.uid`; one that has them is left alone
 *   (Kubernetes also replaces a ca.crt that differs; here it is only filled, so that replicas
 *   with different CAs do not take turns rewriting it);
 * - a token Secret whose account does not exist, or whose uid annotation names another account
 *   uid, is deleted; so are an account's token Secrets when the account is deleted;
 * - a deleted token Secret is taken out of its account's `secrets` references.
 * A token Secret being deleted gets no new token. No token Secret is created for an account
 * (Kubernetes stopped that in 1.24: TokenRequest serves accounts).
 *
 * Safe to run in every replica at once: every write is a compare-and-swap through the store
 * (guaranteedUpdate re-reads and re-decides on a lost race, so of two replicas filling the same
 * Secret one token is written and the other sees it there and stops), and every delete carries
 * the Secret's uid as precondition (NotFound and Conflict mean another replica or the user was
 * first). Replicas compute the same decisions from the same stored state.
 */
import { GenericStore } from '../registry/store';
import { deleteObject } from '../registry/delete';
import { ApiObject } from '../scheme/types';
import { Naming } from '../naming';
import { TokenGenerator } from '../serviceaccount/token-generator';
import { logger } from '../logger';
import { ResourceFeed } from '../registry/resource-feed';
import { WorkQueue } from './work-queue';

const LABEL = 'token controller';
const TOKEN = 'token';
const CA = 'ca.crt';
const NAMESPACE = 'namespace';

/** What the controller remembers of a token Secret: enough to act once it is gone. */
interface TokenSecret { uid: string; account: string; accountUid: string }

/** Work items; JSON arrays as queue keys. */
type Item =
  | ['secret', string, string] // namespace, secret name
  | ['account', string, string, string] // namespace, account name, uid: an account that was removed
  | ['reference', string, string, string, string]; // namespace, account, account uid, removed secret

const code = (err: unknown): number | undefined => (err as { code?: number }).code;
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

export class TokenController {
  private readonly queue: WorkQueue;
  private readonly feeds: ResourceFeed[] = [];
  /** namespace -> secret name -> token Secret, from the Secret feed. */
  private readonly tokenSecrets = new Map<string, Map<string, TokenSecret>>();
  private readonly type: string;
  private readonly nameAnnotation: string;
  private readonly uidAnnotation: string;
  private readonly fieldManager: string;
  private readonly caData: string;

  constructor(private readonly secrets: GenericStore, private readonly accounts: GenericStore, naming: Naming,
    private readonly generator: TokenGenerator, rootCaPem: string) {
    this.type = naming.serviceAccountTokenType;
    this.nameAnnotation = naming.serviceAccountNameAnnotation;
    this.uidAnnotation = `${naming.labelDomain}/service-account.uid`;
    this.fieldManager = `${naming.flavor === 'kubernetes' ? 'kube' : 'orch'}-controller-manager`;
    this.caData = b64(rootCaPem);
    this.queue = new WorkQueue((key) => this.sync(JSON.parse(key) as Item), {
      maxDelayMs: 10_000,
      onError: (key, err) => logger.warn(`${LABEL}: will retry`, { item: key, error: err instanceof Error ? err.message : String(err) }),
    });
  }

  /** The controller when the server has core secrets and serviceaccounts, else undefined. */
  static forStores(stores: Iterable<GenericStore>, naming: Naming, generator: TokenGenerator, rootCaPem: string): TokenController | undefined {
    const all = [...stores];
    const find = (resource: string) => all.find((s) => s.def.group === '' && s.def.resource === resource);
    const secrets = find('secrets');
    const accounts = find('serviceaccounts');
    return secrets && accounts ? new TokenController(secrets, accounts, naming, generator, rootCaPem) : undefined;
  }

  async start(): Promise<void> {
    const accountFeed = new ResourceFeed(this.accounts, {
      upsert: () => undefined,
      remove: (sa) => this.add(['account', sa.metadata?.namespace as string, sa.metadata?.name as string, sa.metadata?.uid as string]),
    }, LABEL, { metadataOnly: true });
    // A Secret whose stored form never mentions the type's name is no token Secret: its updates need not be parsed.
    const secretFeed = new ResourceFeed(this.secrets, { upsert: (s) => this.secretChanged(s), remove: (s) => this.secretRemoved(s) }, LABEL,
      { readsOnly: [this.type] });
    await secretFeed.start();
    this.feeds.push(secretFeed);
    await accountFeed.start();
    this.feeds.push(accountFeed);
  }

  async stop(): Promise<void> {
    await this.queue.stop();
    await Promise.all(this.feeds.map((f) => f.stop()));
  }

  private add(item: Item): void {
    this.queue.add(JSON.stringify(item));
  }

  private secretChanged(secret: ApiObject): void {
    const namespace = secret.metadata?.namespace as string;
    const name = secret.metadata?.name as string;
    if (secret.type !== this.type) {
      this.tokenSecrets.get(namespace)?.delete(name);
      return;
    }
    const annotations = secret.metadata?.annotations ?? {};
    const entry = { uid: secret.metadata?.uid as string, account: annotations[this.nameAnnotation] ?? '', accountUid: annotations[this.uidAnnotation] ?? '' };
    if (!this.tokenSecrets.has(namespace)) this.tokenSecrets.set(namespace, new Map());
    this.tokenSecrets.get(namespace)!.set(name, entry);
    // Validation requires the account annotation; without it there is nothing to act on.
    if (entry.account) this.add(['secret', namespace, name]);
  }

  private secretRemoved(secret: ApiObject): void {
    const namespace = secret.metadata?.namespace as string;
    const name = secret.metadata?.name as string;
    const inNamespace = this.tokenSecrets.get(namespace);
    const entry = inNamespace?.get(name);
    if (!entry || entry.uid !== secret.metadata?.uid) return;
    inNamespace!.delete(name);
    if (!inNamespace!.size) this.tokenSecrets.delete(namespace);
    if (entry.account) this.add(['reference', namespace, entry.account, entry.accountUid, name]);
  }

  private async sync(item: Item): Promise<void> {
    switch (item[0]) {
      case 'secret': return this.syncSecret(item[1], item[2]);
      case 'account': return this.syncRemovedAccount(item[1], item[2], item[3]);
      case 'reference': return this.removeReference(item[1], item[2], item[3], item[4]);
    }
  }

  /** The account of that name (and uid, when given), read consistently; undefined when there is none. */
  private async account(namespace: string, name: string, uid: string, resourceVersion?: string): Promise<ApiObject | undefined> {
    const sa = await getOrUndefined(this.accounts, namespace, name, resourceVersion);
    return sa && (!uid || sa.metadata?.uid === uid) ? sa : undefined;
  }

  private async syncSecret(namespace: string, name: string): Promise<void> {
    // As Kubernetes reads its informer: any version; a removal has its own work item.
    const secret = await getOrUndefined(this.secrets, namespace, name, '0');
    if (!secret || secret.type !== this.type) return;
    const annotations = secret.metadata?.annotations ?? {};
    const accountName = annotations[this.nameAnnotation];
    if (!accountName) return;
    const sa = await this.account(namespace, accountName, annotations[this.uidAnnotation] ?? '');
    if (!sa) {
      logger.info(`${LABEL}: deleting a token Secret whose service account does not exist`, { namespace, secret: name, serviceAccount: accountName });
      await this.deleteToken(namespace, name, secret.metadata?.uid as string);
      return;
    }
    if (secret.metadata?.deletionTimestamp || !this.lacks(secret).length) return;
    const ref = { name: accountName, uid: sa.metadata?.uid as string };
    // Signed before the read-modify-write (which cannot wait); used only if the Secret still has none.
    const token = this.lacks(secret).includes(TOKEN) ? await this.generator.legacy(namespace, ref, name) : undefined;
    const opts = { dryRun: false, fieldManager: this.fieldManager };
    try {
      await this.secrets.guaranteedUpdate({ namespace }, name, (current) => {
        const meta = current.metadata ?? {};
        const now = meta.annotations ?? {};
        // Replaced, re-annotated or being deleted since: its own change is queued and decides.
        if (meta.uid !== secret.metadata?.uid || meta.deletionTimestamp || now[this.nameAnnotation] !== ref.name) return undefined;
        if (now[this.uidAnnotation] && now[this.uidAnnotation] !== ref.uid) return undefined;
        const missing = this.lacks(current);
        if (!missing.length) return undefined;
        const data = { ...((current.data ?? {}) as Record<string, string>) };
        if (missing.includes(CA)) data[CA] = this.caData;
        if (missing.includes(NAMESPACE)) data[NAMESPACE] = b64(namespace);
        if (missing.includes(TOKEN)) {
          // Taken away since the copy read above: that change is queued and signs one.
          if (!token) return undefined;
          data[TOKEN] = b64(token);
        }
        const next = { ...current, data, metadata: { ...meta, annotations: { ...now, [this.nameAnnotation]: ref.name, [this.uidAnnotation]: ref.uid } } };
        next.metadata.managedFields = this.secrets.trackUpdate(current, next, opts, meta.managedFields);
        return next;
      }, opts);
    } catch (err) {
      if (code(err) === 404) return;
      // Invalid (an immutable Secret, say): a retry would fail alike.
      if (code(err) === 422) {
        logger.warn(`${LABEL}: cannot fill a token Secret`, { namespace, secret: name, error: (err as Error).message });
        return;
      }
      throw err;
    }
  }

  /** Which of token, ca.crt and namespace the Secret lacks (absent or empty). */
  private lacks(secret: ApiObject): string[] {
    const data = (secret.data ?? {}) as Record<string, string>;
    return [TOKEN, CA, NAMESPACE].filter((k) => !data[k]);
  }

  /** An account was removed: its token Secrets go, unless an account of that name and uid is back. */
  private async syncRemovedAccount(namespace: string, name: string, uid: string): Promise<void> {
    if (await this.account(namespace, name, uid, '0')) return;
    const candidates = [...(this.tokenSecrets.get(namespace) ?? [])]
      .filter(([, s]) => s.account === name && (!s.accountUid || s.accountUid === uid));
    for (const [secretName, s] of candidates) await this.deleteToken(namespace, secretName, s.uid);
  }

  /** Deletes the Secret if it still has that uid; gone or replaced is fine. */
  private async deleteToken(namespace: string, name: string, uid: string): Promise<void> {
    try {
      await deleteObject(this.secrets, { namespace }, name, { preconditions: { uid } }, { dryRun: false });
    } catch (err) {
      if (code(err) !== 404 && code(err) !== 409) throw err;
    }
  }

  /** A token Secret was removed: its account (that uid, when known) no longer lists it. */
  private async removeReference(namespace: string, accountName: string, accountUid: string, secretName: string): Promise<void> {
    const opts = { dryRun: false, fieldManager: this.fieldManager };
    try {
      await this.accounts.guaranteedUpdate({ namespace }, accountName, (sa) => {
        if (accountUid && sa.metadata?.uid !== accountUid) return undefined;
        const refs = Array.isArray(sa.secrets) ? sa.secrets as { name?: string }[] : [];
        if (!refs.some((r) => r?.name === secretName)) return undefined;
        const rest = refs.filter((r) => r?.name !== secretName);
        const next: ApiObject = { ...sa, secrets: rest, metadata: { ...sa.metadata } };
        if (!rest.length) delete next.secrets;
        next.metadata!.managedFields = this.accounts.trackUpdate(sa, next, opts, sa.metadata?.managedFields);
        return next;
      }, opts);
    } catch (err) {
      if (code(err) !== 404) throw err;
    }
  }
}

async function getOrUndefined(store: GenericStore, namespace: string, name: string, resourceVersion?: string): Promise<ApiObject | undefined> {
  try {
    return await store.get(namespace, name, resourceVersion);
  } catch (err) {
    if (code(err) === 404) return undefined;
    throw err;
  }
}
